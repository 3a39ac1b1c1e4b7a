import { describe, expect, it } from "vitest";
import {
  createProgressReporter,
  formatBar,
  formatDuration,
  formatLine,
  formatSummary,
  RateWindow,
} from "~/newsletter/send/progress.server";

const counts = { total: 300, sent: 120, skipped: 0, failed: 0, uncertain: 0 };

describe("the send's progress", () => {
  it("draws a bar with sent of total, the rate and the time left", () => {
    expect(formatBar(counts, 20, 10)).toBe("[####------] 120 of 300 sent  20/s  about 9 s left");
    expect(formatBar({ ...counts, skipped: 1, failed: 2 }, 2.5, 10)).toBe(
      "[####------] 120 of 300 sent (1 skipped, 2 failed)  2.5/s  about 1 min 11 s left",
    );
    expect(formatBar({ ...counts, sent: 300 }, 0, 4)).toBe("[####] 300 of 300 sent  0.0/s  done");
    expect(formatBar({ ...counts, total: 0, sent: 0 }, 0, 4)).toBe("[####] 0 of 0 sent  0.0/s  done");
  });

  it("says the same in a plain line, and durations as a person reads them", () => {
    expect(formatLine(counts, 0)).toBe("Sending: 120 of 300 sent, 0 skipped, 0 failed, 0.0 mails/s, time left unknown");
    expect(formatDuration(3725)).toBe("1 h 02 min");
    expect(formatDuration(Number.NaN)).toBe("?");
  });

  it("sums up with the relay's words for each failure and names the uncertain readers", () => {
    const text = formatSummary({
      update: "u",
      total: 5,
      sent: 2,
      skipped: 1,
      failed: 1,
      uncertain: 1,
      failures: [{ email: "x@example.org", reason: "550 5.1.1 no such user" }],
      uncertainReaders: ["y@example.org"],
    });
    expect(text).toContain("Update u: 2 of 5 sent, 1 skipped (unsubscribed), 1 failed, 1 uncertain.");
    expect(text).toContain("  failed: x@example.org: 550 5.1.1 no such user");
    expect(text).toContain("--resend-uncertain");
    expect(text).toContain("  uncertain: y@example.org");
    expect(text).not.toContain("not sent yet");
  });

  it("measures the rate over a window", () => {
    const rate = new RateWindow(10_000);
    expect(rate.add(0, 0)).toBe(0);
    expect(rate.add(1000, 50)).toBe(50);
    expect(rate.add(2000, 100)).toBe(50);
    // 20 s later at the same count: the window forgot the burst.
    expect(rate.add(22_000, 100)).toBe(0);
  });

  it("off a terminal writes its line every 5 s by default: a wait is named within 10 s of the send's start", () => {
    let clock = 0;
    const written: string[] = [];
    const plain = createProgressReporter({ write: (t: string) => written.push(t) }, { now: () => clock });
    for (clock = 0; clock <= 10_000; clock += 250) plain.update({ ...counts, sent: clock / 100 });
    expect(written).toHaveLength(3);
  });

  it("redraws a bar in place on a terminal, and writes a line every few seconds elsewhere", () => {
    let clock = 0;
    const written: string[] = [];
    const plain = createProgressReporter({ write: (t: string) => written.push(t) }, { now: () => clock, lineMs: 5000 });
    for (clock = 0; clock <= 12_000; clock += 500) plain.update({ ...counts, sent: clock / 100 });
    expect(written).toHaveLength(3);
    expect(written.every((line) => line.startsWith("Sending: ") && line.endsWith("\n"))).toBe(true);

    const drawn: string[] = [];
    const tty = createProgressReporter({ write: (t: string) => drawn.push(t), isTTY: true }, { now: () => clock });
    clock = 0;
    tty.update(counts);
    clock = 100;
    tty.update(counts);
    clock = 300;
    tty.update(counts);
    expect(drawn).toHaveLength(2);
    expect(drawn[0]?.startsWith("\r\u001b[2K[")).toBe(true);
    tty.done({ ...counts, update: "u", failures: [], uncertainReaders: [] });
    expect(drawn[2]).toBe("\n");
    expect(drawn[3]).toContain("180 not sent yet");
  });
});
