import { describe, expect, it } from "vitest";
import { inPool } from "../../support/production-server";
import { serverForAll } from "../../support/shared-server";

// app/routes/$.tsx: ten 404 lines per 10 s window, then one count.
const PER_WINDOW = 10;
const WINDOW_MS = 10_000;
const SCAN = 400;

const shared = serverForAll();

const notFoundLines = (log: string) => log.split("\n").filter((line) => line.includes("404 Not Found"));

describe("404 log lines", () => {
  it(
    "one per path for a person's visit; a scan of distinct paths writes a count per interval",
    async () => {
      let before = shared.server.output().length;
      for (const path of ["/old-post", "/projects/one", "/favicon.ico.bak"]) {
        const response = await fetch(`${shared.server.url}${path}`);
        expect(response.status).toBe(404);
        await response.arrayBuffer();
      }
      expect(notFoundLines(shared.server.output().slice(before))).toEqual([
        '404 Not Found: "/old-post"',
        '404 Not Found: "/projects/one"',
        '404 Not Found: "/favicon.ico.bak"',
      ]);

      before = shared.server.output().length;
      const started = performance.now();
      await inPool(
        Array.from({ length: SCAN }, (_, i) => i),
        8,
        async (i) => {
          const response = await fetch(`${shared.server.url}/scan-${i}-${"x".repeat(40)}`);
          await response.arrayBuffer();
          expect(response.status).toBe(404);
        },
      );
      const windows = Math.ceil((performance.now() - started) / WINDOW_MS) + 1;
      await shared.server.waitForOutput("more 404s in the last", WINDOW_MS + 5_000);
      // Lines come in their window; wait for the last window's count too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const log = shared.server.output().slice(before);
      const written = notFoundLines(log);
      const counts = [...log.matchAll(/^(\d+) more 404s in the last (\d+) s$/gm)];
      expect(written.length).toBeLessThanOrEqual(PER_WINDOW * windows);
      expect(counts.length).toBeGreaterThan(0);
      expect(counts.length).toBeLessThanOrEqual(windows);
      for (const [, , seconds] of counts) expect(Number(seconds)).toBeLessThanOrEqual(WINDOW_MS / 1000 + 1);
      // Every 404 is either written or counted (the first window's count may come later if the scan outlasts it).
      const counted = counts.reduce((sum, [, n]) => sum + Number(n), 0);
      expect(written.length + counted).toBeLessThanOrEqual(SCAN);
      expect(written.length + counted).toBeGreaterThan(SCAN - PER_WINDOW * windows);
      expect(Buffer.byteLength(log)).toBeLessThan(8_000);
    },
    60_000 + WINDOW_MS,
  );
});
