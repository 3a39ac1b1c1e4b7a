// Whether the production build is older than what it is built from, so that `npm start` never serves a stale build
// (server/index.mjs rebuilds first). Plain Node, no dependency: it runs before any build exists.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * What the build is made from (relative to the project's root). public/ is not among them: its files (the photo, the
 * icons) are served as they are, never read by the build, and public/build/ is the build's own output.
 */
export const BUILD_SOURCES = [
  "app",
  // The latest-post code the site shares with the edge function, imported by the build.
  "supabase/functions/_shared",
  "remix.config.js",
  "postcss.config.js",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

/** Inside the sources but not built in: the update files and the welcome, read at run time (UPDATES_DIR, WELCOME_FILE). */
export const NOT_BUILT = ["app/content/updates", "app/content/welcome.md"];

/** The file whose age is the build's: the server bundle, written by every `remix build`. */
export const BUILD_FILE = "build/index.js";

/**
 * Why the build in `root` must be made (again) before serving, or null when it is fresh: missing, not a production
 * build, or older than a source. With no sources at all (the Docker image carries only the build) there are no times
 * to compare.
 * @param {string} root
 * @returns {string | null}
 */
export function staleBuildReason(root) {
  const build = path.join(root, BUILD_FILE);
  if (!existsSync(build)) return "No production build found";
  const mode = buildMode(build);
  if (mode === "unknown") return `${BUILD_FILE} does not say it is a production build`;
  if (mode !== "production") return `${BUILD_FILE} is a ${mode} build (\`npm run dev\` makes one)`;
  if (!existsSync(path.join(root, "remix.config.js"))) return null;
  const builtAt = statSync(build).mtimeMs;
  const skipped = new Set(NOT_BUILT.map((relative) => path.join(root, relative)));
  for (const source of BUILD_SOURCES) {
    const newer = newerThan(path.join(root, source), builtAt, skipped);
    if (newer) return `${path.relative(root, newer)} changed after the last build`;
  }
  return null;
}

/**
 * The kind of build in `file`, as Remix's compiler wrote it into the server bundle (its `mode` export, next to
 * `assetsBuildDirectory`): "production", "development", or "unknown" when the bundle does not say. A development
 * bundle renders with React's jsxDEV, which the production dependencies do not provide: every page would fail.
 * @param {string} file
 * @returns {string}
 */
export function buildMode(file) {
  const bundle = readFileSync(file, "utf8");
  const declared = /\bmode = "(\w+)",\s*assetsBuildDirectory = /.exec(bundle)?.[1];
  if (declared) return declared;
  return bundle.includes("react/jsx-dev-runtime") ? "development" : "unknown";
}

/**
 * The first file under `file` (itself, or in its folders) modified after `time`, or null.
 * @param {string} file
 * @param {number} time
 * @param {Set<string>} skipped
 * @returns {string | null}
 */
function newerThan(file, time, skipped) {
  if (skipped.has(file) || !existsSync(file)) return null;
  const stats = statSync(file);
  if (!stats.isDirectory()) return stats.mtimeMs > time ? file : null;
  for (const entry of readdirSync(file)) {
    const found = newerThan(path.join(file, entry), time, skipped);
    if (found) return found;
  }
  return null;
}

/**
 * Runs package.json's own build script (one definition of the build) when the build is missing or stale.
 * @param {string} root
 */
export function buildIfStale(root) {
  const reason = staleBuildReason(root);
  if (!reason) return;
  if (!existsSync(path.join(root, "remix.config.js"))) {
    console.error(`${reason}, and there are no sources here to build from: run \`npm run build\` where they are.`);
    process.exit(1);
  }
  console.log(`${reason}: building first (\`npm run build\`).`);
  const script = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts.build;
  const result = spawnSync(script, {
    stdio: "inherit",
    cwd: root,
    shell: true,
    // As npm runs it: the project's tools and this Node first on the PATH.
    env: {
      ...process.env,
      // A NODE_ENV of development left in the shell would make the compiler write a development build again.
      NODE_ENV: "production",
      PATH: [path.join(root, "node_modules", ".bin"), path.dirname(process.execPath), process.env.PATH].join(
        path.delimiter,
      ),
    },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const mode = buildMode(path.join(root, BUILD_FILE));
  if (mode !== "production") {
    console.error(`\`npm run build\` left a ${mode} build in ${BUILD_FILE}: not serving it; check the build script.`);
    process.exit(1);
  }
}
