import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openSqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import type { Reader } from "~/newsletter/list/subscriber-list.server";
import { createMembership } from "~/newsletter/list/supabase/readers.server";
import { concurrencyFor, relayWait } from "~/newsletter/send/send-command.server";
import { openOutbox } from "~/mail/outbox.server";
import { createPacer } from "~/mail/pacer.server";
import { statusLine } from "~/newsletter/send/status-command.server";
import { withoutMail } from "../../../support/newsletter/without-mail";

const counts = { total: 300, queued: 0, sending: 0, sent: 297, failed: 1, skipped: 2, uncertain: 0 };

describe("status", () => {
  it("says what became of each update", () => {
    expect(statusLine("u", false, null, undefined, false)).toBe("u\tnot sent");
    expect(statusLine("u", true, null, undefined, false)).toBe("u\tdraft, not sent");
    expect(statusLine("u", false, null, undefined, false, undefined, new Map(), "2026-12-01")).toBe(
      "u\tscheduled for 2026-12-01 (Europe/Brussels), not sent",
    );
    expect(statusLine("u", true, null, undefined, false, undefined, new Map(), "2026-12-01")).toBe(
      "u\tdraft, not sent",
    );
    const record = {
      update: "u",
      startedAt: Date.UTC(2026, 10, 24, 9),
      finishedAt: Date.UTC(2026, 10, 24, 10),
      stopped: null,
      refusalsKept: true,
    };
    expect(statusLine("u", false, counts, { ...record, paused: false }, false)).toBe(
      "u\tsent to 297 of 300, 2 skipped (unsubscribed), 1 failed, finished 2026-11-24T10:00:00Z",
    );
    const open = { ...counts, sent: 100, queued: 197 };
    expect(statusLine("u", false, open, { ...record, finishedAt: null, paused: false }, true)).toBe(
      "u\tsending, sent to 100 of 300, 2 skipped (unsubscribed), 1 failed, started 2026-11-24T09:00:00Z",
    );
    expect(statusLine("u", false, open, { ...record, finishedAt: null, paused: true }, false)).toBe(
      "u\tsent to 100 of 300, 2 skipped (unsubscribed), 1 failed, 197 waiting in the outbox (paused: run send again), " +
        "started 2026-11-24T09:00:00Z",
    );
    expect(statusLine("u", false, counts, { ...record, paused: false }, false, { bounced: 1, complained: 2 })).toBe(
      "u\tsent to 297 of 300, 2 skipped (unsubscribed), 1 failed, finished 2026-11-24T10:00:00Z, " +
        "297 handed to the relay, 1 bounced, 2 complained",
    );
    const older = { ...record, paused: false, refusalsKept: false };
    expect(statusLine("u", false, counts, older, false, { bounced: 0, complained: 0 })).toBe(
      "u\tsent to 297 of 300, 2 skipped (unsubscribed), 1 failed, finished 2026-11-24T10:00:00Z, " +
        "297 handed to the relay, bounced and complained not recorded (sent by an older version)",
    );
  });
});

describe("readers", () => {
  it("are re-read for the check before each mail once the last read is older than the audience allows", async () => {
    let list: Reader[] = [{ email: "a@x.org", token: "ta" }];
    let reads = 0;
    let clock = 0;
    const has = createMembership(
      async () => (reads++, list),
      5000,
      () => clock,
    );
    const membership = { has };
    expect(await Promise.all([membership.has("ta"), membership.has("tb")])).toEqual([true, false]);
    expect(reads).toBe(1);
    list = [{ email: "b@x.org", token: "tb" }];
    clock = 4000;
    expect(await membership.has("ta")).toBe(true);
    clock = 5001;
    expect(await membership.has("ta")).toBe(false);
    expect(await membership.has("tb")).toBe(true);
    expect(reads).toBe(2);
  });

  it("are asked of the embedded list itself, exactly, before each mail", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "readers-"));
    const list = openSqliteList(dir);
    try {
      await list.signUp("yes@example.com", withoutMail());
      const [reader] = await list.readers();
      expect([await list.isReader(reader!.token), await list.isReader("no")]).toEqual([true, false]);
      expect(await list.unsubscribe(reader!.token)).toBe("removed");
      expect(await list.isReader(reader!.token)).toBe(false);
    } finally {
      list.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("relay connections", () => {
  it("are 8 unpaced, one per 5 mails/s paced, between 1 and 8", () => {
    expect([0, 1, 2, 10, 50, 100, 1000].map(concurrencyFor)).toEqual([8, 1, 1, 2, 8, 8, 8]);
  });
});

describe("the pace", () => {
  it("spaces starts 1/rate apart, lets late starts catch up at most `burst` slots, and banks no idle time", () => {
    let clock = 0;
    const next = createPacer(50, 2, () => clock);
    expect([next(), next(), next()]).toEqual([0, 20, 40]);
    // Due at 60; the event loop was held until 90: the late slots catch up, then the spacing resumes.
    clock = 90;
    expect([next(), next(), next()]).toEqual([0, 0, 10]);
    // A pause longer than the burst: afresh, no burst.
    clock = 10_000;
    expect([next(), next(), next()]).toEqual([0, 20, 40]);
    expect(createPacer(0, 8, () => clock)()).toBe(0);
  });
});

describe("the wait a send shows", () => {
  const T0 = Date.UTC(2026, 10, 24, 12);
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is the relay's last answer while the retry is ahead, and gone once it is due or the relay took a mail since", () => {
    dir = mkdtempSync(path.join(tmpdir(), "relay-wait-"));
    const outbox = openOutbox(path.join(dir, "mail-outbox.sqlite"));
    try {
      const mails = ["a@example.org", "b@example.org"].map((recipient) => ({
        kind: "update" as const,
        recipient,
        ref: "u",
      }));
      outbox.enqueueMany(mails, T0);
      const [a, b] = outbox.claim({ kinds: ["update"], limit: 2, leaseMs: 60_000, owner: "send" }, T0);
      outbox.recordRetry(a!.id, "send", "connect ECONNREFUSED 127.0.0.1:2525", T0 + 30_000, T0 + 1_000);
      outbox.recordRetry(b!.id, "send", "connect ECONNREFUSED 127.0.0.1:2525", T0 + 30_000, T0 + 1_000);
      expect(relayWait(outbox, "u", T0 + 2_000)).toEqual({
        reason: "connect ECONNREFUSED 127.0.0.1:2525",
        email: "a@example.org",
        count: 2,
        nextAt: T0 + 30_000,
      });
      // Its time has come: no "next try in 0 s".
      expect(relayWait(outbox, "u", T0 + 30_000)).toBeNull();
      // The relay is back: one retried and accepted; the other's old error is no longer what the send waits on.
      const [again] = outbox.claim({ kinds: ["update"], limit: 1, leaseMs: 60_000, owner: "send" }, T0 + 30_000);
      outbox.recordSent(again!.id, "send", "250 ok", T0 + 31_000);
      expect(relayWait(outbox, "u", T0 + 20_000)).toBeNull();
    } finally {
      outbox.close();
    }
  });
});
