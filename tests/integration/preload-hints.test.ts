// What the home page asks the browser to fetch before its first paint (app/utils/preload-hints.server.ts, decision 002).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServer } from "../support/production-server";

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

const preloads = (html: string) =>
  [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"\/>/g)].map((match) => match[1]!);

describe("module preloads of /", () => {
  for (const path of ["/", "/?x=1"]) {
    it(`preload the entry and route modules only, not the shared chunks (${path === "/" ? "cached" : "rendered"})`, async () => {
      const html = await (await fetch(server.url + path)).text();
      const hrefs = preloads(html);
      expect(hrefs.some((href) => /^\/build\/entry\.client-/.test(href))).toBe(true);
      expect(hrefs.some((href) => /^\/build\/routes\/_index-/.test(href))).toBe(true);
      expect(hrefs.filter((href) => href.startsWith("/build/_shared/"))).toEqual([]);

      // The chunks still load: the route modules import them, and they are served.
      const index = hrefs.find((href) => href.startsWith("/build/routes/_index-"))!;
      const source = await (await fetch(server.url + index)).text();
      const chunks = [...source.matchAll(/from"(\/build\/_shared\/[^"]+)"/g)].map((match) => match[1]!);
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) expect((await fetch(server.url + chunk)).status).toBe(200);

      // The manifest in the page agrees with the links (the browser renders the same ones when it hydrates).
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
