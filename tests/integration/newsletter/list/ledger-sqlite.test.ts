// The ledger's promises in the embedded list, on real SQLite files: leaving is remembered by mailbox (every spelling
// of it), only the person's own confirmed sign-up lifts their own act, the owner's unsuppress lifts a bounce or an
// import's word and refuses the rest, an import's "left" counts whatever the order of the files, and a backup holds
// (and a restore writes back) every kind of row.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { restoreBackup } from "~/newsletter/backups/restore.server";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { openSqliteList, SQLITE_FILE_NAME, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { hashToken, type ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { withoutMail } from "../../../support/newsletter/without-mail";

const at = new Date("2026-11-27T08:00:00.000Z");
const consent = dialogConsent("/");
let dir: string;
let list: SqliteList;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ledger-"));
  list = openSqliteList(dir);
});
afterEach(() => {
  list.close();
  rmSync(dir, { recursive: true, force: true });
});

const readers = async () => (await list.readers()).map((reader) => reader.email);
const tokenOf = (email: string) => list.owner.rows().find((row) => row.email === email)!.unsubscribeToken;
const imported = (email: string, left = false): ImportedRow => ({
  email,
  createdAt: at.toISOString(),
  importedAt: at.toISOString(),
  consentNote: `imported ${at.toISOString()} from export.csv (Mailchimp); sign-up date not in the file`,
  suppression: left ? { reason: "unsubscribed", at: at.toISOString(), detail: "said so" } : null,
});

/** A sign-up as the dialog makes it, then the mailed link pressed. */
async function signUpAndConfirm(email: string, now: number) {
  const signedUp = await list.signUp(email, { state: "pending", consent, now });
  expect(await list.issueConfirmToken(email, hashToken(`t-${email}-${now}`), now)).toBe("issued");
  expect(await list.confirm(`t-${email}-${now}`, now + 1)).toBe("confirmed");
  return signedUp;
}

describe("leaving, by mailbox", () => {
  it("a complaint from someone@gmail.com keeps every spelling of that inbox from mail", async () => {
    for (const email of ["someone@gmail.com", "someone+news@gmail.com", "Some.One@googlemail.com", "other@gmail.com"]) {
      await list.signUp(email, withoutMail());
    }
    expect(await list.suppress("someone@gmail.com", "complained", "abuse report", at)).toBe("suppressed");
    expect(await readers()).toEqual(["other@gmail.com"]);
    // The tombstone holds a keyed hash, never the address.
    const db = new DatabaseSync(list.file, { readOnly: true });
    const tombstones = db.prepare("select * from newsletter_tombstones").all() as Record<string, string>[];
    db.close();
    expect(tombstones).toHaveLength(1);
    expect(JSON.stringify(tombstones)).not.toMatch(/someone|gmail/);
    expect(tombstones[0]!.mailbox).toMatch(/^[0-9a-f]{64}$/);
  });

  it("an unsubscribe leaves a tombstone: the address is gone, its other spellings get no mail, imports do not revive it", async () => {
    await list.signUp("ada@example.com", withoutMail());
    await list.signUp("ada+work@example.com", withoutMail());
    expect(await list.unsubscribe(tokenOf("ada@example.com"))).toBe("removed");
    expect(list.owner.has("ada@example.com")).toBe(false);
    expect(await readers()).toEqual([]);
    expect(list.owner.addImported(imported("ada@example.com"))).toBe(false);
    expect(list.owner.addImported(imported("ADA+old@example.com"))).toBe(false);
    expect(await readers()).toEqual([]);
    // The owner cannot lift the reader's own act.
    expect(await list.unsuppress("ada@example.com")).toMatchObject({ kind: "refused", reason: "unsubscribed" });
  });

  it("only the person's own new sign-up, confirmed by mail, brings them back; a sign-up alone mails nothing else", async () => {
    await list.signUp("grace@example.org", withoutMail());
    await list.suppress("grace@example.org", "complained", "spam button", at);
    const again = await list.signUp("grace@example.org", { state: "pending", consent, now: at.getTime() });
    expect(again).toEqual({ outcome: "subscribed", mail: true });
    expect(await readers()).toEqual([]);
    expect(await list.issueConfirmToken("grace@example.org", hashToken("t1"), at.getTime())).toBe("issued");
    expect(await list.confirm("t1", at.getTime() + 1)).toBe("confirmed");
    expect(await readers()).toEqual(["grace@example.org"]);
    expect(await list.unsuppress("grace@example.org")).toEqual({ kind: "not-suppressed" });
  });

  it("a person who left by one spelling and comes back by another is a new sign-up, mailed once confirmed", async () => {
    await list.signUp("someone@gmail.com", withoutMail());
    await list.unsubscribe(tokenOf("someone@gmail.com"));
    const signedUp = await signUpAndConfirm("some.one@gmail.com", at.getTime());
    expect(signedUp).toEqual({ outcome: "subscribed", mail: true });
    expect(await readers()).toEqual(["some.one@gmail.com"]);
  });

  it("unsuppress lifts a bounce and an import's word, and refuses a complaint, saying why", async () => {
    await list.signUp("full@example.org", withoutMail());
    await list.signUp("spam@example.org", withoutMail());
    list.owner.addImported(imported("left@example.org", true));
    await list.suppress("full@example.org", "bounced", "552 mailbox full", at);
    await list.suppress("spam@example.org", "complained", "abuse", at);
    expect(await list.unsuppress("full@example.org")).toEqual({ kind: "lifted" });
    expect(await list.unsuppress("left@example.org")).toEqual({ kind: "lifted" });
    const refused = await list.unsuppress("spam@example.org");
    expect(refused).toMatchObject({ kind: "refused", reason: "complained" });
    expect(refused.kind === "refused" && refused.why).toContain("only their own new sign-up");
    expect(await readers()).toEqual(["full@example.org", "left@example.org"]);
  });

  it("an expired pending sign-up after leaving leaves the tombstone in place", async () => {
    await list.signUp("ada@example.com", withoutMail());
    await list.unsubscribe(tokenOf("ada@example.com"));
    await list.signUp("ada@example.com", { state: "pending", consent, now: at.getTime() });
    await list.expirePending(at.getTime() + 8 * 24 * 60 * 60_000);
    expect(list.owner.has("ada@example.com")).toBe(false);
    expect(list.owner.addImported(imported("ada@example.com"))).toBe(false);
  });
});

describe("an import's word that a reader left", () => {
  it("suppresses them whatever the order of the files", async () => {
    expect(list.owner.addImported(imported("ivan@example.com"))).toBe(true);
    expect(await readers()).toEqual(["ivan@example.com"]);
    expect(list.owner.addImported(imported("ivan@example.com", true))).toBe(true);
    expect(await readers()).toEqual([]);
    expect(list.owner.addImported(imported("ivan@example.com", true))).toBe(false);
    expect(list.owner.addImported(imported("ivan@example.com"))).toBe(false);
    expect(await readers()).toEqual([]);
  });

  it("never outranks the reader's own sign-up here", async () => {
    await signUpAndConfirm("joan@example.net", at.getTime());
    expect(list.owner.addImported(imported("joan@example.net", true))).toBe(false);
    expect(await readers()).toEqual(["joan@example.net"]);
  });
});

describe("backups", () => {
  it("hold every kind of row, and a restore of a lost file writes every one back", async () => {
    list.owner.addImported(imported("ivan@example.com"));
    list.owner.addImported(imported("karen@example.com", true));
    await list.signUp("ada@example.com", withoutMail());
    await list.suppress("ada@example.com", "bounced", "550", at);
    await list.signUp("pending@example.com", { state: "pending", consent, now: Date.now() });
    await list.issueConfirmToken("pending@example.com", hashToken("pending-token"), Date.now());
    await list.signUp("gone@example.com", withoutMail());
    await list.unsubscribe(tokenOf("gone@example.com"));
    const backupDir = path.join(dir, "backups");
    mkdirSync(backupDir);
    await list.owner.backup(path.join(backupDir, "before.sqlite"));
    const before = list.owner.rows();
    list.close();
    expect(listBackups(backupDir).map((listing) => listing.subscribers)).toEqual([4]);

    rmSync(path.join(dir, SQLITE_FILE_NAME));
    const report = await restoreBackup(path.join(backupDir, "before.sqlite"), dir, backupDir);
    expect(report).toMatchObject({ kind: "replaced", subscribers: 4 });
    list = openSqliteList(dir);
    expect(list.owner.rows()).toEqual(before);
    expect(await readers()).toEqual(["ivan@example.com"]);
    // The pending reader's mailed link still opens; the one who left is still remembered.
    expect(await list.confirm("pending-token", Date.now())).toBe("confirmed");
    expect(list.owner.addImported(imported("gone@example.com"))).toBe(false);
    expect(await list.unsuppress("ada@example.com")).toEqual({ kind: "lifted" });
  });

  it("an older backup put back into the live list keeps every tombstone made since and returns what was removed", async () => {
    list.owner.addImported(imported("ivan@example.com"));
    await list.signUp("grace@example.org", withoutMail());
    await list.signUp("ada@example.com", withoutMail());
    const backupDir = path.join(dir, "backups");
    mkdirSync(backupDir);
    await list.owner.backup(path.join(backupDir, "before.sqlite"));
    await list.unsubscribe(tokenOf("ivan@example.com"));
    await list.suppress("ada@example.com", "complained", "abuse", at);
    list.owner.remove("ada@example.com");
    list.owner.remove("grace@example.org");
    list.close();
    const report = await restoreBackup(path.join(backupDir, "before.sqlite"), dir, backupDir);
    expect(report).toMatchObject({ kind: "added back", added: ["grace@example.org"], unsubscribedSince: 2 });
    list = openSqliteList(dir);
    expect(await readers()).toEqual(["grace@example.org"]);
  });
});
