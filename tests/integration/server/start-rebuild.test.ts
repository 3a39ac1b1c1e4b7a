// `npm start` (server/index.mjs) in a copy of the project: a fresh build is served as it is, a build older than a
// source is made again first, so an edit of app/content/site.ts shows, and so is the development build `npm run dev`
// leaves behind; `npm run dev` with a taken port ends at once.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_FILE, BUILD_SOURCES } from "../../../server/build-freshness.mjs";
import { childEnv, freePort, productionEnv, ROOT, TEST_SESSION_SECRET, tempDir } from "../../support/production-server";

// What `npm start` does not need: the copy stays small.
const SKIPPED = new Set([
  "node_modules",
  ".git",
  "data",
  "tests",
  "test-results",
  "playwright-report",
  "bench",
  "docs",
]);
const TAGLINE = "Indie maker shipping small software, one project at a time";
const EDITED = "Edited before npm start, served after it";

let project: string;

/** Sets the modification time of `file` and everything under it. */
function age(file: string, seconds: number) {
  const time = Date.now() / 1000 - seconds;
  if (statSync(file).isDirectory()) for (const entry of readdirSync(file)) age(path.join(file, entry), seconds);
  utimesSync(file, time, time);
}

beforeAll(() => {
  project = tempDir("portfolio-start-");
  cpSync(ROOT, project, {
    recursive: true,
    filter: (source) => !SKIPPED.has(path.relative(ROOT, source).split(path.sep)[0] ?? ""),
  });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
  // The copy's build is fresh whatever the state of the checkout's: every source older than it.
  for (const source of BUILD_SOURCES) {
    try {
      age(path.join(project, source), 600);
    } catch {
      // A source the project does not have (package-lock.json is always there; others may go).
    }
  }
  age(path.join(project, BUILD_FILE), 300);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: Record<string, string>): Run {
  const child = spawn(command, args, {
    cwd: project,
    env: childEnv(env),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function startInCopy(): Promise<{ url: string; server: Run }> {
  const port = String(await freePort());
  const server = run(
    process.execPath,
    ["server/index.mjs"],
    productionEnv({ PORT: port, DATA_DIR: path.join(project, "data") }),
  );
  await expect.poll(server.output, { timeout: 150_000, interval: 200 }).toContain("Portfolio listening on");
  return { url: `http://127.0.0.1:${port}`, server };
}

async function stop(server: Run) {
  if (server.child.exitCode === null) process.kill(-server.child.pid!, "SIGTERM");
  await server.exited;
}

describe("npm start and the build", () => {
  it("serves a fresh build without building", async () => {
    const { url, server } = await startInCopy();
    try {
      expect(await (await fetch(`${url}/`)).text()).toContain(TAGLINE);
      expect(server.output()).not.toContain("building first");
    } finally {
      await stop(server);
    }
  });

  it("rebuilds when app/content/site.ts is newer than the build, then serves the edit, with no Vite warning", async () => {
    const content = path.join(project, "app", "content", "site.ts");
    writeFileSync(content, readFileSync(content, "utf8").replace(TAGLINE, EDITED));
    const { url, server } = await startInCopy();
    try {
      expect(server.output()).toContain("app/content/site.ts changed after the last build: building first");
      const html = await (await fetch(`${url}/`)).text();
      expect(html).toContain(EDITED);
      expect(html).not.toContain(TAGLINE);
      expect(server.output()).not.toMatch(/CJS build of Vite|deprecated/i);
      expect(server.output()).not.toContain(".env not found");
    } finally {
      await stop(server);
    }
  }, 200_000);
});

describe("npm start after npm run dev", () => {
  it("rebuilds for production first: the development build would fail every page", async () => {
    const port = String(await freePort());
    // What the owner runs: `npm run dev` until it serves, then Ctrl-C.
    const dev = run("npm", ["run", "dev", "--silent"], {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: port,
      HOST: "127.0.0.1",
      SESSION_SECRET: TEST_SESSION_SECRET,
      DATA_DIR: path.join(project, "data"),
    });
    try {
      await expect.poll(dev.output, { timeout: 150_000, interval: 200 }).toContain("Portfolio listening on");
    } finally {
      await stop(dev);
    }
    expect(readFileSync(path.join(project, BUILD_FILE), "utf8")).toContain('mode = "development"');

    const { url, server } = await startInCopy();
    try {
      expect(server.output()).toContain(
        "build/index.js is a development build (`npm run dev` makes one): building first (`npm run build`).",
      );
      const home = await fetch(`${url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain(EDITED);
      expect(readFileSync(path.join(project, BUILD_FILE), "utf8")).toContain('mode = "production"');
    } finally {
      await stop(server);
    }
  }, 300_000);
});

describe("npm run dev on remix dev's own port", () => {
  it("refuses 3001 at once, in one line, before remix dev starts", async () => {
    const dev = run(process.execPath, ["scripts/dev-port.mjs"], { PATH: process.env.PATH ?? "", PORT: "3001" });
    expect(await dev.exited).toBe(1);
    expect(dev.output().trim()).toBe(
      "npm run dev: port 3001 is the one remix dev takes for its live reload: set another PORT (PORT=3200 npm run dev).",
    );
  });
});

describe("npm run dev with a taken port", () => {
  let taken: net.Server;
  let port: number;

  beforeAll(async () => {
    taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    port = (taken.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it("ends at once with one line naming the port, leaving nothing running", async () => {
    const dev = run("npm", ["run", "dev", "--silent"], {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
    });
    const code = await Promise.race([
      dev.exited,
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 20_000)),
    ]);
    if (code === "hung") process.kill(-dev.child.pid!, "SIGKILL");
    expect(code).toBe(1);
    expect(dev.output().trim()).toBe(
      `npm run dev: port ${port} on 127.0.0.1 is in use: stop what listens there, or set another PORT (PORT=3200 npm run dev).`,
    );
    // The whole process group (npm, and remix dev had it started) is gone.
    expect(() => process.kill(-dev.child.pid!, 0)).toThrow();
  }, 30_000);
});
