// PERF_TWEAKS=off turns every piece of app/perf/ off at once: the page is Remix's own output again, for a comparison
// run (npm run bench). The same HTML elements either way, so the page hydrates the same.
import { execFileSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv, ROOT, serverHarness } from "../../support/production-server";

const harness = serverHarness("perf-switch-");
afterAll(() => harness.cleanup());

const HINT = "//# allFunctionsCalledOnLoad\n";
const frameworkChunks = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".js") && statSync(path.join(dir, name)).size >= 64 * 1024)
    .map((name) => readFileSync(path.join(dir, name), "utf8"));
const compileHints = (dir: string, value: string) =>
  execFileSync(process.execPath, ["app/perf/compile-hints.mjs", dir], {
    cwd: ROOT,
    env: childEnv({ PERF_TWEAKS: value }),
  });

describe("the PERF_TWEAKS switch", () => {
  it("on (the default): no modulepreload, the bootstrap waits for the paint", async () => {
    const server = await harness.start();
    for (const page of ["/", "/?x=1", "/unsubscribe"]) {
      const html = await (await fetch(server.url + page)).text();
      expect(html, page).not.toMatch(/rel="modulepreload"/);
      expect(html, page).not.toMatch(/^import \* as/m);
    }
  });

  it("off: Remix's preload hints and static imports as Remix writes them", async () => {
    const server = await harness.start({ PERF_TWEAKS: "off" });
    for (const page of ["/", "/?x=1", "/unsubscribe"]) {
      const html = await (await fetch(server.url + page)).text();
      const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)].map((match) => match[1]!);
      expect(
        preloads.some((href) => href.startsWith("/build/_shared/")),
        page,
      ).toBe(true);
      expect(html, page).toMatch(/^import \* as route0 from "\/build\/root-[^"]+";$/m);
      expect(html, page).toContain('id="toast-region"');
    }
  });

  it("off and on again: the compile hint leaves the built framework chunk and comes back", () => {
    // On a copy of the build's chunks: other tests serve the real ones meanwhile.
    const dir = harness.scratchDir();
    cpSync(path.join(ROOT, "public", "build", "_shared"), dir, { recursive: true });
    expect(frameworkChunks(dir).length).toBeGreaterThan(0);
    for (const code of frameworkChunks(dir)) expect(code.startsWith(HINT)).toBe(true);
    compileHints(dir, "off");
    for (const code of frameworkChunks(dir)) expect(code.startsWith(HINT)).toBe(false);
    compileHints(dir, "off");
    compileHints(dir, "on");
    compileHints(dir, "on");
    for (const code of frameworkChunks(dir)) expect(code.startsWith(HINT + HINT)).toBe(false);
    for (const code of frameworkChunks(dir)) expect(code.startsWith(HINT)).toBe(true);
  });
});
