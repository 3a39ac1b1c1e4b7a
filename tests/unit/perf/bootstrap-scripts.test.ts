import type { EntryContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { bootstrapScripts, partialManifest, WAIT_FOR_FIRST_PAINT } from "~/perf/bootstrap-scripts.server";

type Manifest = EntryContext["manifest"];
const route = (id: string, parentId: string | undefined, extra: object = {}) => ({
  id,
  ...(parentId === undefined ? {} : { parentId }),
  module: `/build/${id}-H.js`,
  imports: [],
  hasAction: false,
  hasLoader: true,
  hasClientAction: false,
  hasClientLoader: false,
  hasErrorBoundary: false,
  ...extra,
});
const manifest = {
  entry: { module: "/build/entry.client-A.js", imports: [] },
  url: "/build/manifest-M.js",
  version: "m",
  routes: {
    root: route("root", undefined, { path: "" }),
    "routes/_index": route("routes/_index", "root", { index: true }),
    "routes/updates._index": route("routes/updates._index", "root", { path: "updates", index: true }),
    "routes/updates.$name": route("routes/updates.$name", "root", { path: "updates/:name" }),
    "routes/confirm": route("routes/confirm", "root", { path: "confirm" }),
    "routes/$": route("routes/$", "root", { path: "*" }),
  },
} as unknown as Manifest;

describe("bootstrapScripts", () => {
  const scripts = bootstrapScripts({
    manifest,
    routeIds: ["root", "routes/_index"],
    pathname: "/",
    serverHandoffString: '{"state":{}}',
    streamed: '[{"_1":2},"</script><script>alert(1)</script>"]\n',
  });

  it("imports the page's route modules only after the first paint, then the entry", () => {
    expect(scripts.bootstrap.startsWith(WAIT_FOR_FIRST_PAINT)).toBe(true);
    expect(scripts.bootstrap).not.toMatch(/^import\s/m);
    expect([...scripts.bootstrap.matchAll(/import\("([^"]+)"\)/g)].map((match) => match[1])).toEqual([
      "/build/root-H.js",
      "/build/routes/_index-H.js",
      "/build/entry.client-A.js",
    ]);
    expect(scripts.bootstrap).toContain('window.__remixRouteModules = {"root":route0,"routes/_index":route1};');
  });

  it("runs as a module, in order: the manifest and the route modules are set before the entry is imported", async () => {
    const imported: string[] = [];
    const window: Record<string, unknown> = {};
    const self = { PerformanceObserver: undefined };
    const body = scripts.bootstrap.replace(/import\(/g, "load(");
    const run = new Function("window", "self", "load", "requestAnimationFrame", `return ${body}`);
    await run(
      window,
      self,
      async (href: string) => {
        imported.push(href);
        if (href.includes("entry"))
          expect(Object.keys(window).sort()).toEqual(["__remixManifest", "__remixRouteModules"]);
        return { href };
      },
      (callback: () => void) => callback(),
    );
    expect(imported).toHaveLength(3);
    expect((window.__remixRouteModules as Record<string, { href: string }>).root!.href).toBe("/build/root-H.js");
  });

  it("puts the loader data in the context script, closed, and nothing in it can end the element", () => {
    expect(scripts.context.startsWith('window.__remixContext = {"state":{}};')).toBe(true);
    expect(scripts.context).toContain("controller.close();");
    expect(scripts.context).not.toContain("</script");
    expect(scripts.context).toContain("\\u003c/script\\u003e");
  });
});

describe("partialManifest", () => {
  const ids = (pathname: string, matched: string[]) =>
    Object.keys(partialManifest(manifest, matched, pathname).routes).sort();

  it("holds the routes the page rendered and those its parent paths match", () => {
    expect(ids("/", ["root", "routes/_index"])).toEqual(["root", "routes/_index"]);
    expect(ids("/updates/2025-10-20-x", ["root", "routes/updates.$name"])).toEqual([
      "root",
      "routes/_index",
      "routes/updates.$name",
      "routes/updates._index",
    ]);
  });

  it("keeps the rest of the manifest", () => {
    const partial = partialManifest(manifest, ["root"], "/confirm");
    expect(partial.entry).toBe(manifest.entry);
    expect(partial.version).toBe("m");
  });
});
