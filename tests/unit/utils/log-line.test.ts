import { describe, expect, it } from "vitest";
import { createLogThrottle, logField, MAX_LOGGED_CHARS } from "~/utils/log.server";

describe("logField", () => {
  it("quotes and escapes control characters, so a value cannot start a new line", () => {
    expect(logField("/a\nforged\u0000\u001b[31m")).toBe('"/a\\nforged\\u0000\\u001b[31m"');
  });

  it("escapes DEL, the C1 controls a Latin-1 header can carry (NEL, CSI) and the Unicode line separators", () => {
    expect(logField("a\u007fb\u0085c\u009b2Kd\u2028e\u2029")).toBe('"a\\u007fb\\u0085c\\u009b2Kd\\u2028e\\u2029"');
  });

  it("cuts a long value and says how long it was", () => {
    const field = logField("a".repeat(14_000));
    expect(field).toBe(`"${"a".repeat(MAX_LOGGED_CHARS)}"… (14000 chars)`);
  });
});

describe("createLogThrottle", () => {
  it("writes an identical line 3 times a minute, then holds it back and counts, and reports the count later", () => {
    let now = 0;
    const throttle = createLogThrottle({ perWindow: 3, windowMs: 60_000, now: () => now });
    const writes = Array.from({ length: 10 }, () => throttle.allow("same").write);
    expect(writes).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(throttle.allow("other").write).toBe(true);
    now = 60_000;
    expect(throttle.allow("same")).toEqual({ write: true, suppressedBefore: 7 });
  });

  it("keeps a bounded number of distinct lines", () => {
    let now = 0;
    const throttle = createLogThrottle({ perWindow: 1, maxLines: 2, now: () => now });
    throttle.allow("a");
    throttle.allow("b");
    throttle.allow("c");
    // "a" was forgotten to make room, so it is written again at once.
    expect(throttle.allow("a").write).toBe(true);
    now += 1;
    expect(throttle.allow("c").write).toBe(false);
  });
});
