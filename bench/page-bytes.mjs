// The bytes of `/`: its HTML, and the JS and CSS it loads, raw and as sent with Accept-Encoding: gzip.
import { gzipSync } from "node:zlib";
import { ACCEPT_GZIP } from "./options.mjs";

/** @param {string} url */
async function wireBytes(url) {
  // fetch would decode the body: ask with node:http for the bytes on the wire.
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: ACCEPT_GZIP }, (response) => {
        let length = 0;
        response.on("data", (chunk) => (length += chunk.length));
        response.on("end", () => resolve({ length, encoding: response.headers["content-encoding"] ?? "identity" }));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

/** @param {string} base */
export async function measureBytes(base) {
  const html = await (await fetch(`${base}/`, { headers: { "accept-encoding": "identity" } })).text();
  const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1] ?? "");
  const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1] ?? "");
  // Not every module is preloaded (app/perf/preload-hints.server.ts): follow the imports from Remix's inline bootstrap
  // (static ones and its import() of the entry) through the static imports of each module. A module's own import()
  // (the newsletter dialog's chunk) is fetched on demand, not with the page, and is not counted.
  const inlineModules = [...html.matchAll(/<script[^>]*type="module"[^>]*>([\s\S]*?)<\/script>/g)].map(
    (m) => m[1] ?? "",
  );
  /** @param {string} code @param {boolean} withDynamic */
  const importsOf = (code, withDynamic) =>
    [
      ...code.matchAll(/(?:\bfrom\s*|\bimport\s*)["'](\/build\/[^"']+)["']/g),
      ...(withDynamic ? code.matchAll(/\bimport\(\s*["'](\/build\/[^"']+)["']\s*\)/g) : []),
    ].map((match) => match[1] ?? "");
  const modules = new Set([...preloads, ...inlineModules.flatMap((code) => importsOf(code, true))]);
  for (const href of modules) {
    const code = await (await fetch(new URL(href, base))).text();
    for (const imported of importsOf(code, false)) modules.add(imported);
  }
  preloads.push(...modules);
  const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((match) => match[1] ?? "");
  const inlineCss = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? "").join("");

  /** @param {string[]} hrefs */
  const total = async (hrefs) => {
    let raw = 0;
    let gzip = 0;
    for (const href of new Set(hrefs)) {
      const url = new URL(href, base).toString();
      raw += (await (await fetch(url, { headers: { "accept-encoding": "identity" } })).arrayBuffer()).byteLength;
      gzip += /** @type {{ length: number }} */ (await wireBytes(url)).length;
    }
    return { raw, gzip };
  };
  const htmlWire = /** @type {{ length: number, encoding: string }} */ (await wireBytes(`${base}/`));
  return {
    html: { raw: Buffer.byteLength(html), gzip: htmlWire.length, encoding: htmlWire.encoding },
    js: { ...(await total([...scripts, ...preloads])), files: new Set([...scripts, ...preloads]).size },
    css: { ...(await total(styles)), files: styles.length },
    inlineCss: { raw: Buffer.byteLength(inlineCss), gzip: inlineCss ? gzipSync(inlineCss).length : 0 },
  };
}
