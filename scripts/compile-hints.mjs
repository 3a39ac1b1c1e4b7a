// Run by `npm run build` after `remix build`: marks the shared framework chunk (React, React DOM, Remix) with V8's
// explicit compile hint, so that Chromium compiles all of its functions on the background thread that already parses
// it while it downloads, instead of compiling React DOM's large module factory lazily on the main thread when the
// module runs (measured: its evaluation went from 36–54 ms to 19–24 ms; docs/decisions/014-scripts-after-first-paint.md).
// Other browsers read the line as a comment. Idempotent.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HINT = "//# allFunctionsCalledOnLoad\n";
// Only the framework chunk is this large; the app's own modules are a few KiB and compile lazily in no time.
const MIN_BYTES = 64 * 1024;

const shared = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), "public", "build", "_shared");
let marked = 0;
for (const name of readdirSync(shared)) {
  const file = path.join(shared, name);
  if (!name.endsWith(".js") || statSync(file).size < MIN_BYTES) continue;
  const code = readFileSync(file, "utf8");
  if (code.startsWith(HINT)) continue;
  writeFileSync(file, HINT + code);
  marked++;
}
if (marked === 0 && !readdirSync(shared).some((name) => name.endsWith(".js"))) {
  throw new Error(`compile hints: no chunk in ${shared}`);
}
