// The Docker image, replayed without Docker (no engine runs on our machines): each stage of the Dockerfile gets a
// directory that stands for its filesystem, and its instructions run in file order with the same commands (FROM an
// earlier stage copies that stage's directory; COPY copies from the build context or a stage; RUN runs the command in
// the stage's WORKDIR with the stage's ENV). The build context is a copy of the repository as a developer has it,
// filtered through .dockerignore, as `docker build .` would send it. Replayed once per test run (shared-image.ts) for
// tests/integration/deploy/docker-replay.test.ts (the image itself) and weekly-routine.test.ts (docs/weekly.md against it).
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { type Stage, dockerIgnores, envPairs, execForm, parseDockerfile } from "./dockerfile";
import { ROOT, childEnv } from "./production-server";

export const BASE_IMAGE = "node:24-slim";

export const stages: Stage[] = parseDockerfile(readFileSync(path.join(ROOT, "Dockerfile"), "utf8"));
export const runtime: Stage = stages.at(-1)!;
export const instructions = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

export interface StageState {
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
}

/** A replayed image: its build context and each stage's filesystem and settings. */
export interface ReplayedImage {
  context: string;
  states: Map<string, StageState>;
}

/** A path inside the stage's filesystem. */
export const inStage = (state: StageState, containerPath: string) =>
  path.join(state.root, path.posix.resolve(state.workdir, containerPath));

/** The stage's ENV with image paths (`DATA_DIR=/data`) mapped into its directory. */
export const mappedEnv = (state: StageState) =>
  Object.fromEntries(
    Object.entries(state.env).map(([name, value]) => [name, value.startsWith("/") ? inStage(state, value) : value]),
  );

/** A developer's working tree in `work`/repo: what git tracks and what is not ignored, as the checkout holds it. */
export function developerTree(work: string): string {
  const tree = path.join(work, "repo");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT })
    .toString()
    .split("\0")
    .filter((file) => file && existsSync(path.join(ROOT, file)));
  for (const file of files) cpSync(path.join(ROOT, file), path.join(tree, file));
  return tree;
}

/** The build context: the developer's tree without what .dockerignore leaves out. */
function buildContext(work: string, tree: string): string {
  const ignored = dockerIgnores(readFileSync(path.join(tree, ".dockerignore"), "utf8"));
  const target = path.join(work, "context");
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(tree, relative), { withFileTypes: true })) {
      const file = relative ? `${relative}/${entry.name}` : entry.name;
      if (ignored(file)) continue;
      if (entry.isDirectory()) walk(file);
      else cpSync(path.join(tree, file), path.join(target, file));
    }
  };
  walk("");
  return target;
}

/**
 * How this machine reaches the npm registry (proxy, certificate authority, registry address): the network a Docker
 * build has. Nothing else of the developer's environment is passed on.
 */
function registryAccess(): Record<string, string> {
  const names =
    /^(https?_proxy|no_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|npm_config_(registry|cafile|ca|proxy|https_proxy|strict_ssl))$/i;
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => names.test(entry[0]) && entry[1] !== undefined,
    ),
  );
}

/** `sh -c command`, without blocking: a synchronous minute-long `npm ci` starves Vitest's worker of its RPC calls. */
function shell(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, ...output }));
  });
}

async function run(command: string, state: StageState, line: number, work: string) {
  // Absolute paths in the command are paths of the stage's filesystem; the image's `node` user is played by whoever
  // runs this test.
  const uid = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  const mapped = command
    .split(/\s+/)
    .map((word) => (word.startsWith("/") ? inStage(state, word) : word === "node:node" ? uid : word))
    .join(" ");
  const cwd = inStage(state, ".");
  mkdirSync(cwd, { recursive: true });
  const result = await shell(
    mapped,
    cwd,
    // Only the stage's own environment, as in a build container; a warm npm cache stands in for the registry.
    childEnv({
      ...registryAccess(),
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? work,
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
      ...mappedEnv(state),
    }),
  );
  if (result.status !== 0) {
    throw new Error(`Dockerfile line ${line}: \`${command}\` failed:\n${result.stdout}\n${result.stderr}`);
  }
}

function copy(
  args: string,
  flags: Record<string, string>,
  state: StageState,
  line: number,
  { context, states }: ReplayedImage,
) {
  const words = args.split(/\s+/);
  const destination = words.pop()!;
  const from = flags.from ? states.get(flags.from) : undefined;
  if (flags.from && !from) throw new Error(`Dockerfile line ${line}: no stage ${flags.from}`);
  const target = inStage(state, destination);
  const intoDirectory = destination.endsWith("/") || destination === "." || words.length > 1;
  for (const source of words.flatMap((word) => expand(word, from, context, line))) {
    const origin = from ? inStage(from, source) : path.join(context, source);
    if (!existsSync(origin)) throw new Error(`Dockerfile line ${line}: COPY source ${source} does not exist`);
    if (statSync(origin).isDirectory()) {
      // A directory's contents are copied, not the directory itself.
      cpSync(origin, target, { recursive: true });
    } else {
      const file = intoDirectory ? path.join(target, path.basename(origin)) : target;
      mkdirSync(path.dirname(file), { recursive: true });
      cpSync(origin, file);
    }
  }
}

/**
 * A COPY source with a wildcard (`*`, `?`, `[…]`) in its last part: the paths it matches. One that matches nothing
 * fails, as it does under Buildah and Podman ("no such file or directory"), though Docker's BuildKit copies nothing and
 * goes on: the image must build with both. Other sources are themselves.
 */
function expand(source: string, from: StageState | undefined, context: string, line: number): string[] {
  const base = path.posix.basename(source);
  if (!/[*?[]/.test(base)) return [source];
  if (/[*?[]/.test(path.posix.dirname(source))) throw new Error(`Dockerfile line ${line}: teach the replay ${source}`);
  const pattern = new RegExp(
    `^${base
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]")}$`,
  );
  const folder = path.posix.dirname(source);
  const onDisk = from ? inStage(from, folder) : path.join(context, folder);
  const matches = existsSync(onDisk) ? readdirSync(onDisk).filter((name) => pattern.test(name)) : [];
  if (matches.length === 0) {
    throw new Error(`Dockerfile line ${line}: COPY source ${source} matches nothing (Buildah and Podman refuse it)`);
  }
  return matches.map((name) => path.posix.join(folder, name));
}

/**
 * Builds the image from the developer's tree at `tree` (developerTree, then whatever the test plants in it), in
 * `work`: every stage of `dockerfile` (ours unless told) replayed in order. Throws naming the Dockerfile's line when a step fails.
 */
export async function replayImage(work: string, tree: string, dockerfile = stages): Promise<ReplayedImage> {
  const image: ReplayedImage = { context: buildContext(work, tree), states: new Map() };
  const { states } = image;
  for (const stage of dockerfile) {
    const root = path.join(work, "stages", stage.name);
    const parent = states.get(stage.from);
    let state: StageState;
    if (parent) {
      // Hard links: a stage starts as a copy of its parent in a second, not a minute.
      execFileSync("cp", ["-al", parent.root, root]);
      state = { ...parent, env: { ...parent.env }, root };
    } else {
      if (stage.from !== BASE_IMAGE)
        throw new Error(`stage ${stage.name} starts from ${stage.from}, not ${BASE_IMAGE}`);
      mkdirSync(root, { recursive: true });
      state = { root, workdir: "/", env: {}, user: "root" };
    }
    for (const { keyword, flags, args, line } of stage.instructions) {
      switch (keyword) {
        case "WORKDIR":
          state.workdir = path.posix.resolve(state.workdir, args);
          mkdirSync(inStage(state, "."), { recursive: true });
          break;
        case "COPY":
          copy(args, flags, state, line, image);
          break;
        case "RUN":
          if (execForm(args) !== null) throw new Error(`Dockerfile line ${line}: RUN is not in shell form`);
          await run(args, state, line, work);
          break;
        case "ENV":
          for (const [name, value] of envPairs(args)) state.env[name] = value;
          break;
        case "USER":
          state.user = args;
          break;
        case "EXPOSE":
        case "VOLUME":
        case "HEALTHCHECK":
        case "CMD":
          // Run-time settings: checked and used after the replay.
          break;
        default:
          throw new Error(`Dockerfile line ${line}: the replay does not know ${keyword}; teach it, or do without`);
      }
    }
    states.set(stage.name, state);
  }
  return image;
}
