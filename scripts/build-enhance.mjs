// Bundles the enhancement script (app/enhance) into public/build with a content hash, and records its address in
// build/enhance.json for the server. Runs after `remix build`, which empties public/build.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const result = await build({
  entryPoints: [path.join(root, "app/enhance/main.ts")],
  outdir: path.join(root, "public/build"),
  entryNames: "enhance-[hash]",
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  metafile: true,
  logLevel: "warning",
});
const output = Object.keys(result.metafile.outputs).find((file) => file.endsWith(".js"));
if (!output) throw new Error("esbuild produced no script");
const src = "/build/" + path.basename(output);
await mkdir(path.join(root, "build"), { recursive: true });
await writeFile(path.join(root, "build/enhance.json"), JSON.stringify({ src }) + "\n");
console.log(`enhancement script: ${src}`);
