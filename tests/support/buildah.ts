// Buildah (Debian's package) for the image test: the real Dockerfile built as Podman builds it, no daemon. Where the
// registry that serves node:24-slim cannot be reached (our machines reach Debian's and npm's only), a stand-in is made
// once: Debian bookworm's minimal system (debootstrap, from Debian's mirror, as node:24-slim is bookworm), this
// machine's Node 24 and npm in /usr/local as the official image has them, and a user `node` with uid 1000.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";

export const LOCAL_BASE = "docker.io/library/node:24-slim";

/** The program's path, or null. */
export const which = (program: string): string | null => {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
};

export const buildah = (args: string[], options: { cwd?: string } = {}) =>
  spawnSync("buildah", args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });

/**
 * A long command (debootstrap, a build) without blocking: a synchronous minutes-long one starves Vitest's worker of
 * its RPC calls.
 */
export function runLong(command: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
    }
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, output }));
  });
}

/** Every stored image, intermediate ones (a layered build's cache) included. */
export const imageIds = (): Set<string> =>
  new Set(buildah(["images", "--all", "--quiet", "--no-trunc"]).stdout.split("\n").filter(Boolean));

/**
 * Removes the cached layers this build made from the developer's tree (`COPY . .` and every step after it in that
 * stage), which no later build of other sources can reuse: the cache keeps the dependencies' layers only, instead of
 * growing by a build stage every run.
 */
export function removeSourceLayers(before: Set<string>) {
  const fromTree = /COPY dir:[0-9a-f]+ in \. *$/;
  for (const id of imageIds()) {
    if (before.has(id)) continue;
    const inspected = buildah(["inspect", "--type", "image", id]);
    if (inspected.status !== 0) continue;
    const history = (JSON.parse(inspected.stdout) as { Docker?: { history?: { created_by?: string }[] } }).Docker
      ?.history;
    if (history?.some((step) => fromTree.test(step.created_by ?? ""))) buildah(["rmi", id]);
  }
}

export const hasImage = (name: string) => buildah(["inspect", "--type", "image", name]).status === 0;

/**
 * Makes LOCAL_BASE from a Debian root filesystem in `work` when no node:24-slim is stored: returns what it did, or why
 * it could not (null base then).
 */
export async function ensureBaseImage(work: string): Promise<{ made: boolean; why: string }> {
  if (hasImage(LOCAL_BASE)) return { made: false, why: `${LOCAL_BASE} is stored already` };
  if (!which("debootstrap")) return { made: false, why: "debootstrap is not installed (apt-get install debootstrap)" };
  const rootfs = path.join(work, "rootfs");
  const bootstrap = await runLong("debootstrap", [
    "--variant=minbase",
    "bookworm",
    rootfs,
    "http://deb.debian.org/debian",
  ]);
  if (bootstrap.status !== 0) return { made: false, why: `debootstrap failed: ${bootstrap.output.slice(-500)}` };
  const local = path.join(rootfs, "usr/local");
  mkdirSync(path.join(local, "bin"), { recursive: true });
  cpSync(process.execPath, path.join(local, "bin/node"));
  const npm = path.resolve(
    path.dirname(execFileSync("sh", ["-c", 'readlink -f "$(command -v npm)"']).toString().trim()),
    "..",
  );
  cpSync(npm, path.join(local, "lib/node_modules/npm"), { recursive: true });
  symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(local, "bin/npm"));
  symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(local, "bin/npx"));
  // This machine's authorities: where the registry is reached through an inspecting proxy, npm ci needs them.
  const bundle = "/etc/ssl/certs/ca-certificates.crt";
  if (existsSync(bundle)) {
    mkdirSync(path.join(rootfs, "etc/ssl/certs"), { recursive: true });
    cpSync(bundle, path.join(rootfs, bundle));
  }
  execFileSync("chroot", [rootfs, "sh", "-c", "groupadd -g 1000 node && useradd -u 1000 -g node -m node"]);
  const container = buildah(["from", "scratch"]).stdout.trim();
  try {
    const mounted = buildah(["mount", container]).stdout.trim();
    execFileSync("cp", ["-a", `${rootfs}/.`, mounted]);
    buildah(["umount", container]);
    const config = buildah([
      "config",
      "--env",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      ...(existsSync(bundle) ? ["--env", `NODE_EXTRA_CA_CERTS=${bundle}`] : []),
      "--cmd",
      "node",
      container,
    ]);
    if (config.status !== 0) return { made: false, why: config.stderr };
    const commit = buildah(["commit", "-q", "--rm", container, LOCAL_BASE]);
    if (commit.status !== 0) return { made: false, why: commit.stderr };
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  return { made: true, why: `made ${LOCAL_BASE} from Debian bookworm (debootstrap) and Node ${process.version}` };
}
