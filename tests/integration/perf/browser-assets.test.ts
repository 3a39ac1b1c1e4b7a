// What the browser can get must not carry server-only code or secrets: every file under public/ (the built assets
// included) and the pages the production server renders. Needs `npm run build` (npm test runs it first).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../../support/production-server";
import { FAKE_ANON_KEY, startStubSupabase, type StubSupabase } from "../../support/stub-supabase/stub";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const publicDir = path.join(root, "public");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

const read = (file: string) => readFileSync(file, "latin1");
const moduleFile = (relative: string) => path.join(root, "node_modules", relative);

/**
 * Markers that only exist in server-only code, each with a file where it must be found: a marker that matches
 * nothing even there would prove nothing here.
 */
const SERVER_ONLY: { what: string; marker: RegExp; foundIn?: string }[] = [
  {
    // js-joda's packed zone data: "Europe/Brussels|LMT BMT WET CET CEST WEST|…".
    what: "time-zone data (@js-joda/timezone)",
    marker: /[A-Z][a-z]+\/[A-Za-z_]+\|[A-Z+-][A-Za-z0-9+-]* /,
    foundIn: moduleFile("@js-joda/timezone/dist/js-joda-timezone.esm.js"),
  },
  { what: "zod", marker: /ZodError/, foundIn: moduleFile("zod/v3/ZodError.js") },
  { what: "remix-toast", marker: /toast-session|s3Cr3t/, foundIn: moduleFile("remix-toast/dist/index.js") },
  {
    what: "supabase-js",
    marker: /supabase-js\/|X-Client-Info|functions\/v1|rest\/v1/,
    foundIn: moduleFile("@supabase/supabase-js/dist/index.mjs"),
  },
  { what: "node:sqlite", marker: /node:sqlite|DatabaseSync/ },
  // The social card's renderer (app/sharing/social-card.server.tsx): satori, the Yoga layout engine it inlines as
  // WebAssembly, resvg's native loader, and the card's font files.
  {
    what: "satori",
    marker: /Satori is not initialized|Satori can decode/,
    foundIn: moduleFile("satori/dist/index.js"),
  },
  { what: "Yoga (WebAssembly inlined by satori)", marker: /AGFzbQEAAAAB/, foundIn: moduleFile("satori/dist/index.js") },
  {
    what: "resvg",
    marker: /resvg-js-linux-x64-gnu|resvgjs\.linux-x64-gnu/,
    foundIn: moduleFile("@resvg/resvg-js/js-binding.js"),
  },
  {
    what: "font files (WOFF, WOFF2)",
    marker: /wOFF|wOF2/,
    foundIn: moduleFile("@fontsource/inter/files/inter-latin-400-normal.woff"),
  },
  { what: "server environment variable names", marker: /SESSION_SECRET|SUPABASE_ANON_KEY|SUPABASE_URL/ },
];

/** Secret values the browser must never see: the ones the tests use, and any set locally. */
function secretValues(): string[] {
  const values = [
    FAKE_ANON_KEY,
    "integration-session-secret-0123456789-abcdef",
    "e2e-session-secret-that-is-long-enough-0123456789",
  ];
  const envFile = path.join(root, ".env");
  const local = existsSync(envFile) ? parseEnv(readFileSync(envFile, "utf8")) : {};
  for (const name of ["SESSION_SECRET", "SUPABASE_ANON_KEY"]) {
    for (const value of [process.env[name], local[name]]) if (value && value.length >= 8) values.push(value);
  }
  return values;
}

describe("browser assets (public/)", () => {
  const files = existsSync(path.join(publicDir, "build")) ? filesUnder(publicDir) : [];

  it("exist: the build has run", () => {
    expect(
      files.some((file) => /entry\.client-[\w-]+\.js$/.test(file)),
      "run `npm run build` first",
    ).toBe(true);
  });

  for (const { what, marker, foundIn } of SERVER_ONLY) {
    it(`carry no ${what}`, () => {
      if (foundIn) expect(marker.test(read(foundIn)), `marker for ${what} found in its own source`).toBe(true);
      const offenders = files.filter((file) => marker.test(read(file))).map((file) => path.relative(root, file));
      expect(offenders).toEqual([]);
    });
  }

  it("hold no social card (rendered on request, never a file)", () => {
    // A PNG's IHDR gives its size: the card is the only 1200×630 picture of the site.
    const cards = files.filter((file) => {
      const bytes = readFileSync(file);
      return (
        bytes.toString("latin1", 12, 16) === "IHDR" && bytes.readUInt32BE(16) === 1200 && bytes.readUInt32BE(20) === 630
      );
    });
    expect(cards.map((file) => path.relative(root, file))).toEqual([]);
  });

  it("carry no secret value", () => {
    const secrets = secretValues();
    const offenders = files.filter((file) => secrets.some((secret) => read(file).includes(secret)));
    expect(offenders.map((file) => path.relative(root, file))).toEqual([]);
  });
});

describe("rendered pages", () => {
  let stub: StubSupabase;
  let server: ServerProcess;

  beforeAll(async () => {
    stub = await startStubSupabase({ database: false });
    server = await startServer({ env: { SUPABASE_URL: stub.url, SUPABASE_ANON_KEY: stub.anonKey } });
  });

  afterAll(async () => {
    await server?.stop();
    await stub?.close();
  });

  it("carry neither the anon key, nor the Supabase address, nor the session secret", async () => {
    const secrets = [...secretValues(), stub.anonKey, stub.url, new URL(stub.url).host];
    for (const pagePath of ["/", "/", "/?x=1", "/no-such-page"]) {
      const response = await fetch(server.url + pagePath);
      const body = await response.text();
      const headers = JSON.stringify([...response.headers]);
      for (const secret of secrets) {
        expect(body.includes(secret), `${secret} in the body of ${pagePath}`).toBe(false);
        expect(headers.includes(secret), `${secret} in the headers of ${pagePath}`).toBe(false);
      }
      for (const { marker } of SERVER_ONLY) expect(body).not.toMatch(marker);
    }
  });
});
