// What the owner's commands (scripts/subscribers.mjs, scripts/newsletter.mjs) share: the server's settings and the
// production build, so a command runs the same code as the server, wherever it does (inside the Docker image too).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseEnv } from "node:util";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * @param {string} message
 * @param {number} code
 * @returns {never}
 */
export function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/**
 * When whoever reads the output goes away (`npm run subscribers -- list | head`), `then` runs once, instead of Node
 * printing an EPIPE stack; later writes to the closed pipe are dropped. Any other output error is thrown as before.
 * @param {() => void} then
 */
export function onClosedPipe(then = () => process.exit(0)) {
  let closed = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code !== "EPIPE") throw error;
      if (closed) return;
      closed = true;
      then();
    });
  }
}

/** The same settings as the server: a local .env fills in what the environment leaves unset. */
export function loadEnv() {
  const envFile = path.join(root, ".env");
  if (existsSync(envFile)) {
    for (const [name, value] of Object.entries(parseEnv(readFileSync(envFile, "utf8")))) process.env[name] ??= value;
  }
}

/**
 * build/index.js: what the app gives its tools (app/server-build/build-entry.server.ts). A bad setting ends the
 * command with the settings' own message.
 * @returns {Promise<typeof import("../app/server-build/build-entry.server")>}
 */
export async function loadBuild() {
  const buildPath = path.join(root, "build", "index.js");
  if (!existsSync(buildPath)) fail("No production build: run `npm run build` first.");
  return import(pathToFileURL(buildPath).href).then(
    (build) => {
      // On stderr: the commands' output may be redirected to a file (`subscribers export --csv > file`).
      for (const line of build.settingsWarnings()) process.stderr.write(`${line}\n`);
      return build;
    },
    (error) => fail(error instanceof Error && error.name === "EnvError" ? error.message : String(error)),
  );
}
