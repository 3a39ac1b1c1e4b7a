// No Docker engine runs on our machines, so the tests replay the Dockerfile itself (tests/support/docker-image.ts),
// once per run (shared-image.ts): each stage gets a directory that stands for its filesystem, and its instructions run
// in file order with the same commands. Here the runtime stage is started with its CMD, on its own copy of the volume,
// and checked with its HEALTHCHECK and the owner's tools. What cannot be replayed (the base image, file ownership,
// USER) and the build context are checked in docker-file.test.ts.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { owner } from "~/content/site";
import { execForm } from "../../support/dockerfile";
import { BASE_IMAGE, type StageState, inStage, instructions, mappedEnv, runtime } from "../../support/docker-image";
import { subscribe } from "../../support/newsletter/http";
import {
  ROOT,
  type ServerProcess,
  TEST_SESSION_SECRET,
  childEnv,
  freePort,
  startServer,
  tempDir,
} from "../../support/production-server";
import { PLANTED_SECRET, freshVolume, sharedImage } from "../../support/shared-image";

let work: string;
let volume: string;
let tree: string;
let states: Map<string, StageState>;
let server: ServerProcess | undefined;
/** The image's environment with this container's own volume as DATA_DIR. */
let containerEnv: () => Record<string, string>;

/** Every file of a directory tree, relative paths. */
function filesUnder(directory: string, relative = ""): string[] {
  return readdirSync(path.join(directory, relative), { withFileTypes: true }).flatMap((entry) => {
    const file = relative ? `${relative}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(directory, file) : [file];
  });
}

beforeAll(async () => {
  // The Node that replays the image must be the image's Node.
  expect(`node:${process.versions.node.split(".")[0]}-slim`).toBe(BASE_IMAGE);
  work = tempDir("portfolio-docker-replay-");
  const image = await sharedImage();
  ({ tree, states } = image);
  const state = image.runtimeState;
  volume = freshVolume(image, "portfolio-docker-replay-volume-");
  containerEnv = () => ({ ...mappedEnv(state), DATA_DIR: volume });
  const command = execForm(instructions(runtime, "CMD")[0]!.args)!;
  server = await startServer({
    cwd: inStage(state, "."),
    args: command.slice(1),
    // `docker run -e`: only what the image sets plus what the operator passes. HOST and PORT keep the replay on
    // loopback and off the image's port 3000, which another test run may hold.
    env: {
      PATH: process.env.PATH ?? "",
      ...containerEnv(),
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      SESSION_SECRET: TEST_SESSION_SECRET,
    },
  });
}, 600_000);

afterAll(async () => {
  await server?.stop();
  // Half a gigabyte of stages: never leave it behind. Removed without blocking (a synchronous removal on a busy machine
  // starves Vitest's worker of its RPC calls), and given the time it takes there.
  if (work) await rm(work, { recursive: true, force: true });
}, 300_000);

describe("the owner's subscriber tools, run in the image", () => {
  // `docker exec portfolio npm run subscribers -- …`: the image's npm, its environment, the volume's database.
  function toolsWith(extraEnv: Record<string, string>, ...args: string[]) {
    const state = states.get(runtime.name)!;
    const result = spawnSync("npm", ["run", "subscribers", "--", ...args], {
      cwd: inStage(state, "."),
      env: childEnv({
        PATH: process.env.PATH ?? "",
        HOME: work,
        ...containerEnv(),
        SESSION_SECRET: TEST_SESSION_SECRET,
        ...extraEnv,
      }),
      encoding: "utf8",
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  const tools = (...args: string[]) => toolsWith({}, ...args);

  it("count, list, export --csv (clean CSV on stdout), remove and backup, while the server runs", async () => {
    await subscribe(server!.url, "reader-one@example.com");
    await subscribe(server!.url, "reader-two@example.com");

    expect(tools("count")).toMatchObject({ code: 0, stdout: "2\n" });
    const list = tools("list");
    expect(list.code).toBe(0);
    expect(
      list.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split("\t")[0]),
    ).toEqual(["reader-one@example.com", "reader-two@example.com"]);

    // What `> subscribers.csv` would hold: the CSV and nothing else (no npm banner).
    const csv = tools("export", "--csv");
    expect(csv.code).toBe(0);
    const lines = csv.stdout.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe(
      "email,subscribed_at,unsubscribe_link,state,confirmed_at,suppressed,suppressed_at,suppressed_because",
    );
    expect(lines).toHaveLength(3);
    const link = lines[1]!.split(",")[2]!;
    expect(link).toMatch(new RegExp(`^${owner.siteUrl}/unsubscribe\\?token=[0-9a-f-]{36}$`));
    // The link works on the running site.
    const unsubscribePage = await fetch(`${server!.url}${new URL(link).pathname}${new URL(link).search}`);
    expect(unsubscribePage.status).toBe(200);
    await unsubscribePage.arrayBuffer();

    const backupFile = path.join(work, "subscribers-backup.sqlite");
    const backup = tools("backup", backupFile);
    expect(backup.code).toBe(0);
    expect(existsSync(backupFile)).toBe(true);

    expect(tools("remove", "READER-ONE@example.com").code).toBe(0);
    expect(tools("count").stdout).toBe("1\n");
    const again = tools("remove", "reader-one@example.com");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is not on the list");
  });

  it("with Supabase configured, says where the list lives and never asks for a service key", () => {
    const result = toolsWith(
      { SUPABASE_URL: "https://project.supabase.co", SUPABASE_ANON_KEY: "anon-key-of-the-test" },
      "count",
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("The list lives in Supabase");
    expect(result.stderr).toContain("never asks for the service key");
  });
});

describe("the image, replayed", () => {
  it("has the very stylesheet the repository's build has, byte for byte (its sources are app/ alone)", () => {
    // The context has no .git: Tailwind's automatic source detection would then scan tests, docs and the README.
    const stylesheets = (root: string) => {
      const dir = path.join(root, "public/build/_assets");
      return readdirSync(dir)
        .filter((file) => file.endsWith(".css"))
        .map((file) => ({ file, bytes: readFileSync(path.join(dir, file)) }));
    };
    const image = stylesheets(inStage(states.get(runtime.name)!, "."));
    const repository = stylesheets(ROOT);
    expect(image).toHaveLength(1);
    expect(repository, "run `npm run build` first (npm test does)").toHaveLength(1);
    expect(image[0]!.file).toBe(repository[0]!.file);
    expect(image[0]!.bytes.equals(repository[0]!.bytes)).toBe(true);
  });

  it("holds production dependencies only, the server, the build and public files, and no secret", () => {
    const app = inStage(states.get(runtime.name)!, ".");
    for (const kept of [
      "server/index.mjs",
      "package.json",
      "build/index.js",
      "public/favicon.svg",
      "scripts/healthcheck.mjs",
    ]) {
      expect(existsSync(path.join(app, kept)), kept).toBe(true);
    }
    expect(readdirSync(path.join(app, "public/build")).some((file) => file.startsWith("entry.client-"))).toBe(true);
    for (const production of ["express", "@remix-run/express", "react-dom", "zod"]) {
      expect(existsSync(path.join(app, "node_modules", production)), production).toBe(true);
    }
    for (const development of [
      // What `npm prune --omit=dev` alone keeps (devOptional or optional in the lock): scripts/prune-production.mjs.
      "typescript",
      "@opentelemetry/api",
      "@zxing/text-encoding",
      "@remix-run/dev",
      "vitest",
      "@playwright/test",
      "esbuild",
      "tailwindcss",
      "eslint",
      "lighthouse",
      "@electric-sql/pglite",
      "deno",
    ]) {
      expect(existsSync(path.join(app, "node_modules", development)), development).toBe(false);
    }
    expect(existsSync(path.join(app, "node_modules/stale"))).toBe(false);
    // No command of a removed package is left behind: `tsc` least of all.
    const commands = readdirSync(path.join(app, "node_modules/.bin"));
    expect(commands).not.toContain("tsc");
    for (const command of commands)
      expect(existsSync(path.join(app, "node_modules/.bin", command)), command).toBe(true);
    // And nothing a production package needs went with them: the image's npm finds every dependency.
    const tree = spawnSync("npm", ["ls", "--omit=dev", "--all"], {
      cwd: app,
      env: childEnv({ PATH: process.env.PATH ?? "", HOME: work, ...mappedEnv(states.get(runtime.name)!) }),
      encoding: "utf8",
    });
    expect(tree.status, `${tree.stdout.slice(-2_000)}\n${tree.stderr}`).toBe(0);
    // The server bundle alone: no metafiles (esbuild's reports of the build), no dev-server version file.
    expect(readdirSync(path.join(app, "build"))).toEqual(["index.js"]);
    const ours = filesUnder(app).filter((file) => !file.startsWith("node_modules/"));
    expect(ours.filter((file) => file.startsWith(".env"))).toEqual([]);
    for (const file of ours) {
      expect(readFileSync(path.join(app, file), "latin1"), file).not.toContain(PLANTED_SECRET);
    }
  });

  it("serves the home page with the hero", async () => {
    const response = await fetch(`${server!.url}/`);
    expect(response.status).toBe(200);
    // The cached home page: its inline scripts are allowed by hash, the bundles by origin (decision 006).
    expect(response.headers.get("content-security-policy")).toMatch(/script-src 'self' 'sha256-/);
    const html = await response.text();
    expect(html).toMatch(new RegExp(`<h1[^>]*>${owner.name}</h1>`));
    expect(html).toContain("Days In");
    // The browser entry the page imports is served from the image's public/build.
    const asset = /"(\/build\/entry\.client-[\w-]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeTruthy();
    expect((await fetch(`${server!.url}${asset}`)).status).toBe(200);
  });

  it("serves the updates from the image's own copy of app/content/updates, and none of the app's sources", async () => {
    const app = inStage(states.get(runtime.name)!, ".");
    // The checkout's updates, the owner's new one planted beside the repository's.
    const shipped = readdirSync(path.join(tree, "app/content/updates")).filter((file) => file.endsWith(".md"));
    expect(shipped.length).toBeGreaterThan(0);
    expect(readdirSync(path.join(app, "app/content/updates")).sort()).toEqual(shipped.sort());
    expect(readdirSync(path.join(app, "app"))).toEqual(["content"]);
    // The owner's welcome mail (planted in the checkout) goes with the updates, and nothing else of app/.
    expect(readdirSync(path.join(app, "app/content")).sort()).toEqual(["updates", "welcome.md"]);
    const list = await fetch(`${server!.url}/updates`);
    expect(list.status).toBe(200);
    const first = /href="(\/updates\/\d{4}-\d{2}-\d{2}-[a-z0-9-]+)"/.exec(await list.text())?.[1];
    expect(first).toBeTruthy();
    expect((await fetch(`${server!.url}${first}`)).status).toBe(200);
  });

  it("draws the social card with the image's production dependencies (satori, resvg's native package, the font)", async () => {
    const response = await fetch(`${server!.url}/card.png`);
    expect(response.status).toBe(200);
    const png = Buffer.from(await response.arrayBuffer());
    expect(png.toString("latin1", 1, 4)).toBe("PNG");
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });

  it("answers /healthz ok, and its HEALTHCHECK passes", async () => {
    const response = await fetch(`${server!.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");

    const state = states.get(runtime.name)!;
    const check = execForm(instructions(runtime, "HEALTHCHECK")[0]!.args.slice(4))!;
    const port = new URL(server!.url).port;
    const healthcheck = (env: Record<string, string>) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, check.slice(1), {
          cwd: inStage(state, "."),
          env: childEnv({ PATH: process.env.PATH ?? "", ...mappedEnv(state), ...env }),
          stdio: "ignore",
        });
        child.once("exit", (code) => resolve(code));
      });
    expect(await healthcheck({ PORT: port, HOST: "127.0.0.1" })).toBe(0);
    // And it can fail: nothing listens on a free port.
    expect(await healthcheck({ PORT: String(await freePort()), HOST: "127.0.0.1" })).toBe(1);
  });

  it("stops cleanly on SIGTERM", async () => {
    expect(await server!.stop()).toEqual({ code: 0, signal: null });
  });
});
