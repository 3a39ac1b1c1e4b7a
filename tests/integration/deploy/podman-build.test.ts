// The real image, built from the Dockerfile by Buildah (what `podman build` runs) from a developer's tree, then
// started to serve `/`. Docker's BuildKit forgives what Buildah refuses (a COPY whose pattern matches nothing), so the
// replay (docker-replay.test.ts) alone cannot prove the image builds for a VPS that builds with Podman.
//
// What runs for real depends on the machine, and each part says so: the build needs Buildah (Debian's package); the
// base image comes from a stand-in (tests/support/buildah.ts) where the registry is out of reach; the start uses
// `podman run` where its OCI runtime may set the container's limits, and `buildah run --isolation chroot` (the image's
// own filesystem, user, working directory and environment, this machine's network) where it may not.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { owner } from "~/content/site";
import { developerTree } from "../../support/docker-image";
import { buildah, ensureBaseImage, imageIds, removeSourceLayers, runLong, which } from "../../support/buildah";
import { freePort, TEST_SESSION_SECRET, tempDir } from "../../support/production-server";

const IMAGE = `localhost/portfolio-test-${process.pid}`;
const present = which("buildah") !== null;
let work: string;
let built: { ok: boolean; log: string } = { ok: false, log: "" };
let cachedBefore = new Set<string>();
const containers: string[] = [];

beforeAll(async () => {
  if (!present) return;
  work = tempDir("portfolio-buildah-");
  console.info(`image test: base image: ${(await ensureBaseImage(work)).why}`);
  const tree = developerTree(work);
  cachedBefore = imageIds();
  // --pull=never: the base is the stored one (or the stand-in); host network: npm ci reaches the registry as here.
  // --layers, as `podman build` does by default: a step whose instruction and inputs are unchanged since an earlier
  // build reuses that build's layer, so the dependencies' `npm ci` and prune run again only when the lock file or
  // the prune script changes (a build went from 274 s to 38 s on a busy machine with only a source changed).
  const build = await runLong("buildah", [
    "bud",
    "--pull=never",
    "--isolation=chroot",
    "--network=host",
    "--layers",
    "-t",
    IMAGE,
    tree,
  ]);
  built = { ok: build.status === 0, log: build.output.slice(-6_000) };
}, 1_200_000);

afterAll(() => {
  if (!present) return;
  for (const container of containers) buildah(["rm", container]);
  buildah(["rmi", IMAGE]);
  removeSourceLayers(cachedBefore);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Waits for `/` on the port to answer, or for the process to end. */
async function served(url: string, child: ChildProcess, output: () => string) {
  const ended = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`exited ${code}:\n${output()}`))),
  );
  const ready = (async () => {
    for (;;) {
      const response = await fetch(url).catch(() => null);
      if (response) return response;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return Promise.race([ready, ended]);
}

describe.skipIf(!present)("the image, built by Buildah as Podman builds it", () => {
  it("builds from a developer's tree with the Dockerfile as it is", () => {
    expect(built.ok, built.log).toBe(true);
  });

  it("serves / from the image (podman run, or buildah run --isolation chroot where podman cannot start it)", async () => {
    expect(built.ok, built.log).toBe(true);
    const port = String(await freePort());
    const settings = ["HOST=127.0.0.1", `PORT=${port}`, `SESSION_SECRET=${TEST_SESSION_SECRET}`];
    const probe = which("podman")
      ? spawnSync("podman", ["run", "--rm", "--network", "host", IMAGE, "node", "-e", "0"], { encoding: "utf8" })
      : null;
    let child: ChildProcess;
    if (probe?.status === 0) {
      console.info("image test: started with podman run");
      child = spawn("podman", ["run", "--rm", "--network", "host", ...settings.flatMap((s) => ["-e", s]), IMAGE], {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } else {
      const why = probe ? probe.stderr.trim().split("\n").at(-1) : "podman is not installed";
      console.info(`image test: podman run could not start a container here (${why}); buildah run --isolation chroot`);
      const container = buildah(["from", "--pull=never", IMAGE]).stdout.trim();
      containers.push(container);
      const env = settings.flatMap((s) => ["-e", s]);
      child = spawn(
        "buildah",
        ["run", "--isolation", "chroot", "--network", "host", ...env, container, "--", "node", "server/index.mjs"],
        { detached: true, stdio: ["ignore", "pipe", "pipe"] },
      );
    }
    let output = "";
    for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => (output += chunk));
    try {
      const response = await served(`http://127.0.0.1:${port}/`, child, () => output);
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(new RegExp(`<h1[^>]*>${owner.name}</h1>`));
      expect(output).toContain("(production)");
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  }, 120_000);
});

if (!present) {
  describe("the image, built by Buildah", () => {
    it.skip("is not built here: Buildah is not installed (apt-get install buildah podman debootstrap)", () => {});
  });
}
