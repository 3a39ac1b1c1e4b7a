// What the home page asks the browser to fetch before its first paint: nothing but the page and its image
// (app/perf/preload-hints.server.ts, app/perf/scripts-after-first-paint.tsx, decisions 002 and 014).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WAIT_FOR_FIRST_PAINT } from "~/perf/bootstrap-scripts.server";
import { type ServerProcess, startServer } from "../../support/production-server";

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

const inlineModules = (html: string) =>
  [...html.matchAll(/<script\b[^>]*\stype="module"[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);

describe("scripts of /", () => {
  for (const path of ["/", "/?x=1"]) {
    it(`are not preloaded, and Remix's bootstrap imports them after the first paint (${path === "/" ? "cached" : "rendered"})`, async () => {
      const html = await (await fetch(server.url + path)).text();
      expect(html).not.toMatch(/rel="modulepreload"/);
      // No link to a script at all, and nothing after the document.
      expect(html).not.toMatch(/<link[^>]* href="\/build\/[^"]+\.js"/);
      expect(html.endsWith("</body></html>")).toBe(true);

      const [bootstrap, ...others] = inlineModules(html);
      expect(others).toEqual([]);
      expect(bootstrap!.startsWith(WAIT_FOR_FIRST_PAINT)).toBe(true);
      expect(bootstrap).not.toMatch(/^import\s/m);
      const imported = [...bootstrap!.matchAll(/import\("(\/build\/[^"]+)"\)/g)].map((match) => match[1]!);
      expect(imported.some((href) => /^\/build\/routes\/_index-/.test(href))).toBe(true);
      expect(imported.some((href) => /^\/build\/entry\.client-/.test(href))).toBe(true);

      // The chunks still load: the route modules import them, and they are served.
      const index = imported.find((href) => href.startsWith("/build/routes/_index-"))!;
      const source = await (await fetch(server.url + index)).text();
      const chunks = [...source.matchAll(/from"(\/build\/_shared\/[^"]+)"/g)].map((match) => match[1]!);
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) expect((await fetch(server.url + chunk)).status).toBe(200);

      // The manifest in the page lists no chunk to preload (the browser renders the same links when it hydrates).
      const manifest = /window\.__remixManifest = (\{[\s\S]*?\});\n/.exec(html)?.[1];
      expect(manifest).toBeTruthy();
      const parsed = JSON.parse(manifest!) as {
        entry: { imports: string[] };
        routes: Record<string, { imports?: string[] }>;
      };
      expect(parsed.entry.imports).toEqual([]);
      for (const route of Object.values(parsed.routes)) expect(route.imports ?? []).toEqual([]);
    });
  }
});
