// Run by `npm run build` after `remix build` (plain Node: it edits the built chunk, nothing imports it). Marks the shared
// framework chunk (React, React DOM, Remix) with V8's explicit compile hint, so that Chromium compiles all of its
// functions on the background thread that already parses it while it downloads, instead of compiling React DOM's large
// module factory lazily on the main thread when the module runs. Buys: the chunk's evaluation went from 36–54 ms to
// 19–24 ms (app/perf/README.md). Other browsers read the line as a comment. With PERF_TWEAKS=off it takes the hint out
// again, so the comparison run needs no rebuild. Idempotent either way.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HINT = "//# allFunctionsCalledOnLoad\n";
// Only the framework chunk is this large; the app's own modules are a few KiB and compile lazily in no time.
const MIN_BYTES = 64 * 1024;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
// A folder as the argument is for the tests, which work on a copy.
const shared = process.argv[2] ?? path.join(root, "public", "build", "_shared");
const on = process.env.PERF_TWEAKS !== "off";
if (!readdirSync(shared).some((name) => name.endsWith(".js"))) throw new Error(`compile hints: no chunk in ${shared}`);
for (const name of readdirSync(shared)) {
  const file = path.join(shared, name);
  if (!name.endsWith(".js") || statSync(file).size < MIN_BYTES) continue;
  const code = readFileSync(file, "utf8");
  const marked = code.startsWith(HINT);
  if (on && !marked) writeFileSync(file, HINT + code);
  if (!on && marked) writeFileSync(file, code.slice(HINT.length));
}
