import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRateLimitedLog } from "~/utils/log.server";

let lines: string[];
let log: (line: string) => void;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  lines = [];
  log = createRateLimitedLog({
    perWindow: 3,
    windowMs: 10_000,
    summary: (heldBack, seconds) => `${heldBack} more 404s in the last ${seconds} s`,
    write: (line) => lines.push(line),
  });
});

afterEach(() => vi.useRealTimers());

describe("createRateLimitedLog", () => {
  it("writes every line of a person's visit as it comes", () => {
    for (const path of ["/a", "/b", "/c"]) log(`404 ${path}`);
    vi.advanceTimersByTime(60_000);
    expect(lines).toEqual(["404 /a", "404 /b", "404 /c"]);
  });

  it("past the rate, counts the lines and writes the count once when the window ends", () => {
    for (let i = 0; i < 1_000; i += 1) log(`404 /${i}`);
    expect(lines).toEqual(["404 /0", "404 /1", "404 /2"]);
    vi.advanceTimersByTime(9_999);
    expect(lines).toHaveLength(3);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual(["404 /0", "404 /1", "404 /2", "997 more 404s in the last 10 s"]);
  });

  it("starts a new window after the last, with its own allowance and count", () => {
    for (let i = 0; i < 5; i += 1) log(`first ${i}`);
    vi.advanceTimersByTime(10_000);
    for (let i = 0; i < 4; i += 1) log(`second ${i}`);
    vi.advanceTimersByTime(10_000);
    expect(lines).toEqual([
      "first 0",
      "first 1",
      "first 2",
      "2 more 404s in the last 10 s",
      "second 0",
      "second 1",
      "second 2",
      "1 more 404s in the last 10 s",
    ]);
  });

  it("a steady flood writes at most the allowance and one count per window", () => {
    // 500 lines a second for a minute.
    for (let ms = 0; ms < 60_000; ms += 2) {
      log(`404 /${ms}`);
      vi.advanceTimersByTime(2);
    }
    vi.advanceTimersByTime(10_000);
    expect(lines.length).toBeLessThanOrEqual(6 * 4 + 1);
    const counted = lines.filter((line) => line.includes("more 404s")).map((line) => Number.parseInt(line, 10));
    expect(counted.reduce((sum, n) => sum + n, 0) + lines.length - counted.length).toBe(30_000);
  });
});
