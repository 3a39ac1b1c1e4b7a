/**
 * Every question the engine asks on its path is one index range, never a read or a sort of the whole queue: the
 * claim, the expiry of old mails, the hourly cap's count and the fair limits' counts, as SQLite plans them on a real
 * outbox file (EXPLAIN QUERY PLAN), and a claim that still takes the row whose place comes first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimOrder } from "~/mail/claim-order.server";
import { openOutbox, type Outbox } from "~/mail/outbox.server";

let dir: string;
let outbox: Outbox;
let db: DatabaseSync;
const T0 = Date.UTC(2026, 10, 28, 9);

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "outbox-plan-"));
  outbox = openOutbox(path.join(dir, "mail-outbox.sqlite"));
  db = new DatabaseSync(path.join(dir, "mail-outbox.sqlite"));
});
afterEach(() => {
  db.close();
  outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const plan = (sql: string, values: SQLInputValue[]) =>
  (db.prepare(`explain query plan ${sql}`).all(...values) as { detail: string }[]).map((row) => row.detail).join("\n");

describe("the outbox's questions", () => {
  it("claims from one range of the line index, with no sort of the due rows", () => {
    for (const kinds of [["confirm"], ["update"]] as const) {
      const { sql, values } = claimOrder({ kinds, limit: 8, now: T0 });
      const detail = plan(sql, values);
      expect(detail).toMatch(/SEARCH mail_outbox USING INDEX mail_outbox_line \(kind=\? AND state=\?\)/);
      expect(detail).not.toMatch(/TEMP B-TREE|SCAN mail_outbox/);
    }
  });

  it("finds expired mails, the hour's sends and a claimant's mails by index", () => {
    const expired = "select id from mail_outbox where kind = ? and state = 'queued' and created_at <= ? limit ?";
    expect(plan(expired, ["confirm", T0, 500])).toMatch(/USING (COVERING )?INDEX mail_outbox_kind_age/);
    const sent = "select count(*) from mail_outbox where kind = ? and state = 'sent' and sent_at >= ?";
    expect(plan(sent, ["confirm", T0])).toMatch(/USING (COVERING )?INDEX mail_outbox_kind_sent/);
    for (const field of ["mailbox", "visitor", "network"]) {
      const count =
        `select count(*) from mail_outbox where kind = ? and json_extract(payload, '$.${field}') = ? ` +
        "and created_at > ?";
      expect(plan(count, ["confirm", "x", T0])).toMatch(new RegExp(`USING (COVERING )?INDEX mail_outbox_${field}`));
    }
  });

  it("takes the row whose place in line comes first among thousands, not the oldest", () => {
    const many = Array.from({ length: 5_000 }, (_, n) => ({
      kind: "confirm" as const,
      recipient: `flood${n}@example.com`,
      placeInLine: T0 + 60_000 * (n + 1),
    }));
    outbox.enqueueMany(many, T0);
    outbox.enqueue({ kind: "confirm", recipient: "reader@example.org" }, T0 + 10);
    const [first] = outbox.claim({ kinds: ["confirm"], limit: 1, owner: "me", leaseMs: 60_000 }, T0 + 20);
    expect(first!.recipient).toBe("reader@example.org");
  });
});
