// Suppressed readers in the embedded list, on real SQLite files: who is a reader, what a sign-up again does, soft
// bounces in a row, the owner's view, and a file from before suppression getting the columns.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteList, SQLITE_FILE_NAME, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { withoutMail } from "../../../support/newsletter/without-mail";

const consent = { page: "/", wording: "Send me new posts.", version: "v1" };
const at = new Date("2026-11-27T08:00:00.000Z");
let dir: string;
let list: SqliteList;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "suppression-"));
  list = openSqliteList(dir);
});
afterEach(() => {
  list.close();
  rmSync(dir, { recursive: true, force: true });
});

const readerEmails = async () => (await list.readers()).map((reader) => reader.email);
const tokenOf = async (email: string) => list.owner.rows().find((row) => row.email === email)!.unsubscribeToken;

describe("suppressing a reader", () => {
  it("takes them out of every send, keeps the relay's words, and is lifted by the owner", async () => {
    await list.signUp("ada@example.com", withoutMail());
    await list.signUp("grace@example.com", withoutMail());
    const token = await tokenOf("ada@example.com");
    expect(await list.suppress("ADA@example.com", "bounced", "550 5.1.1 user unknown", at)).toBe("suppressed");
    expect(await readerEmails()).toEqual(["grace@example.com"]);
    expect(await list.isReader(token)).toBe(false);
    expect(list.owner.show("ada@example.com")?.suppression).toEqual({
      reason: "bounced",
      at: at.toISOString(),
      detail: "550 5.1.1 user unknown",
    });
    expect(list.owner.rows().map((row) => row.suppression?.reason ?? null)).toEqual(["bounced", null]);
    // The same report again, and one for nobody on the list, store no row.
    expect(await list.suppress("ada@example.com", "bounced", "again", at)).toBe("already");
    expect(await list.suppress("nobody@example.com", "bounced", "550", at)).toBe("unknown");
    expect(list.owner.count()).toBe(2);
    expect(await list.unsuppress("ada@example.com")).toEqual({ kind: "lifted" });
    expect(await list.unsuppress("ada@example.com")).toEqual({ kind: "not-suppressed" });
    expect(await readerEmails()).toEqual(["ada@example.com", "grace@example.com"]);
    expect(await list.isReader(token)).toBe(true);
  });

  it("treats a suppressed reader who signs up again as a new sign-up: a confirmation mail, no update before it", async () => {
    await list.signUp("ada@example.com", { state: "pending", consent, now: at.getTime() });
    expect(await list.suppress("ada@example.com", "bounced", "550 no such user", at)).toBe("suppressed");
    // A confirmation already queued finds the reader gone, so it is not sent.
    expect(await list.issueConfirmToken("ada@example.com", "a".repeat(64), at.getTime())).toBe("gone");
    const later = at.getTime() + 25 * 60 * 60_000;
    expect(await list.signUp("ada@example.com", { state: "pending", consent, now: later })).toEqual({
      outcome: "subscribed",
      mail: true,
    });
    expect(await list.signUp("Ada@example.com", withoutMail())).toEqual({ outcome: "duplicate", mail: false });
    expect(await list.issueConfirmToken("ada@example.com", "b".repeat(64), later)).toBe("issued");
    expect(await readerEmails()).toEqual([]);
  });

  it("counts a complaint as leaving the list: a backup's row does not bring the reader back", async () => {
    await list.signUp("ada@example.com", withoutMail());
    const [row] = list.owner.rows();
    await list.suppress("ada@example.com", "complained", "abuse report", at);
    list.owner.remove("ada@example.com");
    const report = list.owner.addBack([
      { email: row!.email, createdAt: row!.createdAt, unsubscribeToken: row!.unsubscribeToken },
    ]);
    expect(report).toEqual({ added: [], alreadyThere: 0, unsubscribedSince: 1 });
  });
});

describe("soft bounces", () => {
  it("suppress as bounced at the third in a row; a delivery between starts the count again", async () => {
    await list.signUp("ada@example.com", withoutMail());
    const minute = (n: number) => new Date(at.getTime() + n * 60_000);
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(1))).toBe("counted");
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(1))).toBe("already");
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(2))).toBe("counted");
    await list.delivered("ada@example.com");
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(3))).toBe("counted");
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(4))).toBe("counted");
    expect(await readerEmails()).toEqual(["ada@example.com"]);
    expect(await list.softBounce("ada@example.com", "452 mailbox full", minute(5))).toBe("suppressed");
    expect(await readerEmails()).toEqual([]);
    expect(list.owner.show("ada@example.com")?.suppression).toMatchObject({
      reason: "bounced",
      detail: "3 soft bounces in a row; the last: 452 mailbox full",
    });
    expect(await list.softBounce("nobody@example.com", "452", minute(6))).toBe("unknown");
  });
});

describe("a file from before suppression", () => {
  it("gets the columns when opened, its readers kept and not suppressed", async () => {
    list.close();
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(path.join(tmpdir(), "suppression-old-"));
    const db = new DatabaseSync(path.join(dir, SQLITE_FILE_NAME));
    db.exec(
      "create table newsletter_subscribers (id integer primary key, email text not null, created_at text not null, " +
        "unsubscribe_token text, state text not null default 'confirmed');" +
        "insert into newsletter_subscribers (email, created_at, unsubscribe_token) values " +
        "('ada@example.com', '2026-01-01T00:00:00.000Z', '7d1c3a52-6f0e-4b7a-9d2c-1e5f8a3b9c4d')",
    );
    db.close();
    list = openSqliteList(dir);
    expect(await readerEmails()).toEqual(["ada@example.com"]);
    expect(await list.suppress("ada@example.com", "bounced", "550", at)).toBe("suppressed");
    expect(await readerEmails()).toEqual([]);
  });
});
