import { readFileSync } from "node:fs";

/** The address of the built enhancement script (written by scripts/build-enhance.mjs next to the server build). */
function readEnhanceScriptSrc(): string | null {
  try {
    const manifest = JSON.parse(readFileSync(new URL("./enhance.json", import.meta.url), "utf8")) as { src?: unknown };
    return typeof manifest.src === "string" ? manifest.src : null;
  } catch {
    console.warn("build/enhance.json is missing: the page is served without its enhancement script.");
    return null;
  }
}

export const enhanceScriptSrc = readEnhanceScriptSrc();
