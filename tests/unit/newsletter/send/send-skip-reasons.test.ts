// Each skip says its real reason: not every skipped reader unsubscribed.
import { describe, expect, it } from "vitest";
import { formatSummary } from "~/newsletter/send/progress.server";
import { statusLine } from "~/newsletter/send/status-command.server";

const counts = { total: 10, queued: 0, sending: 0, sent: 6, failed: 0, skipped: 4, uncertain: 0 };
const record = {
  update: "u",
  startedAt: 0,
  finishedAt: Date.UTC(2026, 10, 24, 10),
  paused: false,
  stopped: null,
  refusalsKept: true,
};

describe("skip reasons", () => {
  it("status counts the unsubscribed apart from the other reasons", () => {
    const gone = "the update u is no longer in the updates folder";
    expect(statusLine("u", false, counts, record, false, undefined, new Map([[gone, 3]]))).toBe(
      `u\tsent to 6 of 10, 1 skipped (unsubscribed), 3 skipped (${gone}), finished 2026-11-24T10:00:00Z`,
    );
  });

  it("the summary names each reader skipped for another reason", () => {
    const text = formatSummary({
      update: "u",
      ...counts,
      failures: [],
      uncertainReaders: [],
      otherSkips: [{ email: "a@example.org", reason: "the update u was made a draft again" }],
    });
    expect(text).toContain("  skipped: a@example.org: the update u was made a draft again\n");
  });
});
