import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confirmToken } from "~/newsletter/confirm/confirmation-composer.server";
import { confirmationMail, confirmLink } from "~/newsletter/confirm/confirmation-mail.server";
import {
  confirmByHash,
  DAY_MS,
  expirePending,
  issueToken,
  signUpPending,
} from "~/newsletter/list/sqlite/double-opt-in.server";
import { consentRecord, countByState } from "~/newsletter/list/sqlite/owner-rows.server";
import { suppress } from "~/newsletter/list/sqlite/suppression.server";
import { CONSENT_WORDING, consentPageOf, consentVersion, dialogConsent } from "~/newsletter/sign-up/consent.server";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { openLedger } from "~/newsletter/list/sqlite/tombstones.server";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
let store: SqliteList;
let db: DatabaseSync;
const T0 = Date.UTC(2026, 10, 24, 12);
const consent = dialogConsent("/");

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "confirm-"));
  store = openSqliteList(dir);
  // A connection of the test's own: the list hands no database out.
  db = new DatabaseSync(store.file);
  // The ledger's SQL function (mailbox_hash), as every connection of the list has it.
  openLedger(db);
});
afterEach(() => {
  if (db.isOpen) db.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the consent wording", () => {
  it("is the dialog's text, part by part, as the spec words it", () => {
    expect(CONSENT_WORDING.split("\n")).toEqual([
      "Get Updates on My Journey",
      "Be the first to hear when a new project launches, what I learned building it, and how the challenge is going.",
      "Email address",
      "Get Early Access",
      "Join the journey • No spam • Unsubscribe anytime",
    ]);
    const dialog = readFileSync(new URL("../../../../app/components/newsletter-dialog.tsx", import.meta.url), "utf8");
    for (const field of ["title", "text", "emailLabel", "submit", "footnote"])
      expect(dialog).toContain(`copy.${field}`);
  });

  it("is versioned by its text: an edit is a new version, the old record keeps the old words", () => {
    signUpPending(db, "early@example.com", consent, T0);
    const edited = { page: "/", wording: `${CONSENT_WORDING}\nNew line`, version: consentVersion("edited") };
    signUpPending(db, "late@example.com", edited, T0);
    expect(consentRecord(db, "early@example.com")).toMatchObject({ wording: CONSENT_WORDING, page: "/" });
    expect(consentRecord(db, "late@example.com")).toMatchObject({ wording: edited.wording });
    expect(consentVersion(CONSENT_WORDING)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("double opt-in in the embedded store", () => {
  it("stores a sign-up pending with its consent, and one mail", () => {
    expect(signUpPending(db, "reader@example.com", consent, T0)).toEqual({ outcome: "subscribed", mail: true });
    expect(consentRecord(db, "READER@example.com")).toMatchObject({
      email: "reader@example.com",
      state: "pending",
      signedUpAt: new Date(T0).toISOString(),
      confirmedAt: null,
      page: "/",
      wordingVersion: consent.version,
    });
    expect(countByState(db)).toEqual({ confirmed: 0, pending: 1 });
  });

  it("answers a pending address 'duplicate', with at most one more mail per 24 hours", () => {
    signUpPending(db, "reader@example.com", consent, T0);
    expect(signUpPending(db, "Reader@example.com", consent, T0 + DAY_MS - 1)).toEqual({
      outcome: "duplicate",
      mail: false,
    });
    expect(signUpPending(db, "reader@example.com", consent, T0 + DAY_MS)).toEqual({ outcome: "duplicate", mail: true });
    expect(signUpPending(db, "reader@example.com", consent, T0 + DAY_MS + 60_000)).toMatchObject({ mail: false });
  });

  it("confirms with the mailed token only, once, within 7 days", () => {
    signUpPending(db, "reader@example.com", consent, T0);
    expect(issueToken(db, "reader@example.com", "hash-1", T0 + 1000)).toBe("issued");
    expect(confirmByHash(db, "hash-wrong", T0 + 2000)).toBe("unknown");
    expect(confirmByHash(db, "hash-1", T0 + 2000)).toBe("confirmed");
    expect(confirmByHash(db, "hash-1", T0 + 3000)).toBe("already");
    expect(consentRecord(db, "reader@example.com")).toMatchObject({
      state: "confirmed",
      confirmedAt: new Date(T0 + 2000).toISOString(),
    });
    // A confirmed reader signing up again: the spec's duplicate, and no mail.
    expect(signUpPending(db, "reader@example.com", consent, T0 + 30 * DAY_MS)).toEqual({
      outcome: "duplicate",
      mail: false,
    });
    expect(issueToken(db, "reader@example.com", "hash-2", T0)).toBe("confirmed");
  });

  it("removes a pending reader after 7 days (a fake clock), who may then sign up again", () => {
    signUpPending(db, "late@example.com", consent, T0);
    issueToken(db, "late@example.com", "hash-late", T0);
    expect(expirePending(db, T0 + 7 * DAY_MS - 1)).toEqual([]);
    expect(confirmByHash(db, "hash-late", T0 + 7 * DAY_MS - 1)).toBe("confirmed");
    // Another reader's token dies with the week.
    signUpPending(db, "later@example.com", consent, T0);
    issueToken(db, "later@example.com", "hash-later", T0);
    expect(confirmByHash(db, "hash-later", T0 + 7 * DAY_MS)).toBe("unknown");
    expect(expirePending(db, T0 + 7 * DAY_MS)).toEqual(["later@example.com"]);
    expect(issueToken(db, "later@example.com", "hash-x", T0 + 7 * DAY_MS)).toBe("gone");
    expect(signUpPending(db, "later@example.com", consent, T0 + 8 * DAY_MS)).toEqual({
      outcome: "subscribed",
      mail: true,
    });
  });

  it("keeps a pending reader whose confirmation bounced past the week; their own new sign-up is a new one", () => {
    signUpPending(db, "bounced@example.com", consent, T0);
    issueToken(db, "bounced@example.com", "hash-bounced", T0);
    expect(suppress(db, "bounced@example.com", "bounced", "550 5.1.1 no such user", new Date(T0))).toBe("suppressed");
    expect(expirePending(db, T0 + 30 * DAY_MS)).toEqual([]);
    expect(confirmByHash(db, "hash-bounced", T0 + DAY_MS)).toBe("unknown");
    // The person asks again: the mail goes (the relay may have been wrong); only their confirmation lifts the bounce.
    expect(signUpPending(db, "bounced@example.com", consent, T0 + 31 * DAY_MS)).toEqual({
      outcome: "subscribed",
      mail: true,
    });
    expect(issueToken(db, "bounced@example.com", "hash-again", T0 + 31 * DAY_MS)).toBe("issued");
    expect(confirmByHash(db, "hash-again", T0 + 31 * DAY_MS + 1)).toBe("confirmed");
  });

  it("keeps the first mail's link working after a second mail, each for its own 7 days; the one before stops", () => {
    signUpPending(db, "twice@example.com", consent, T0);
    issueToken(db, "twice@example.com", "hash-first", T0);
    issueToken(db, "twice@example.com", "hash-second", T0 + DAY_MS);
    // The first link dies with its own week, whatever the second's.
    expect(confirmByHash(db, "hash-first", T0 + 7 * DAY_MS)).toBe("unknown");
    issueToken(db, "twice@example.com", "hash-third", T0 + 2 * DAY_MS);
    // Two mails back is one too many: only the latest and the one before open.
    expect(confirmByHash(db, "hash-first", T0 + 2 * DAY_MS)).toBe("unknown");
    expect(confirmByHash(db, "hash-second", T0 + 2 * DAY_MS + 1)).toBe("confirmed");
    expect(confirmByHash(db, "hash-third", T0 + 2 * DAY_MS + 2)).toBe("already");
    expect(confirmByHash(db, "hash-second", T0 + 2 * DAY_MS + 3)).toBe("already");
  });

  it("keeps the first mail's link when the second mail is retried with its own token again", () => {
    signUpPending(db, "retried@example.com", consent, T0);
    issueToken(db, "retried@example.com", "hash-first", T0);
    // The second mail: a 4xx, then two more attempts at the same mail, each issuing the same token.
    for (const attempt of [0, 1, 2]) issueToken(db, "retried@example.com", "hash-second", T0 + DAY_MS + attempt);
    expect(confirmByHash(db, "hash-first", T0 + DAY_MS + 3)).toBe("confirmed");
  });

  it("gives every attempt at one confirmation mail the same token, and another mail another", () => {
    const row = { id: 7, createdAt: T0, recipient: "Reader@Example.com" };
    const token = confirmToken("s".repeat(32), row);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(confirmToken("s".repeat(32), { ...row, recipient: "reader@example.com" })).toBe(token);
    expect(confirmToken("s".repeat(32), { ...row, id: 8 })).not.toBe(token);
    expect(confirmToken("s".repeat(32), { ...row, createdAt: T0 + 1 })).not.toBe(token);
    // Without the secret nobody can make it.
    expect(confirmToken("t".repeat(32), row)).not.toBe(token);
  });

  it("stores nothing when the fair limits hold the mail back, and answers as the spec does", () => {
    expect(signUpPending(db, "held@example.com", consent, T0, false)).toEqual({
      outcome: "subscribed",
      mail: false,
      held: true,
    });
    expect(countByState(db)).toEqual({ confirmed: 0, pending: 0 });
    // Later, within the limits, the same address is a new sign-up with its first mail.
    expect(signUpPending(db, "held@example.com", consent, T0 + 1)).toEqual({ outcome: "subscribed", mail: true });
    // A reminder due after 24 hours is held back the same way, the request time left as it was.
    expect(signUpPending(db, "held@example.com", consent, T0 + DAY_MS + 1, false)).toMatchObject({ held: true });
    expect(signUpPending(db, "held@example.com", consent, T0 + DAY_MS + 2)).toEqual({
      outcome: "duplicate",
      mail: true,
    });
  });

  it("lets a pending reader unsubscribe, and keeps a sign-up while mail is off confirmed with its consent", async () => {
    await store.signUp("before@example.com", withoutMail(T0, "/updates"));
    expect(consentRecord(db, "before@example.com")).toMatchObject({
      state: "confirmed",
      confirmedAt: new Date(T0).toISOString(),
      page: "/updates",
      wording: CONSENT_WORDING,
    });
    signUpPending(db, "pending@example.com", consent, T0);
    const token = store.owner.rows().find((row) => row.email === "pending@example.com")!.unsubscribeToken;
    expect(await store.unsubscribe(token)).toBe("removed");
    expect(store.owner.rows().map((row) => [row.email, row.state])).toEqual([["before@example.com", "confirmed"]]);
  });

  it("migrates a file from before confirmation: every reader confirmed", () => {
    store.close();
    const file = path.join(dir, "old.sqlite");
    const old = new DatabaseSync(file);
    old.exec("create table newsletter_subscribers (id integer primary key, email text not null, created_at text)");
    old.exec("insert into newsletter_subscribers (email, created_at) values ('old@example.com', '2026-01-01')");
    old.close();
    rmSync(path.join(dir, "newsletter.sqlite"));
    rmSync(path.join(dir, "newsletter.sqlite-wal"), { force: true });
    rmSync(path.join(dir, "newsletter.sqlite-shm"), { force: true });
    renameSync(file, path.join(dir, "newsletter.sqlite"));
    store = openSqliteList(dir);
    expect(store.owner.rows()).toMatchObject([{ email: "old@example.com", state: "confirmed", confirmedAt: null }]);
  });
});

describe("the confirmation mail", () => {
  const mail = confirmationMail("reader@example.com", "TOKEN_abc-123", {
    ownerName: "Alex Placeholder",
    siteUrl: "https://example.com",
  });

  it("links to the confirm page, in both parts, with the owner's and the site's names", () => {
    const link = confirmLink("https://example.com", "TOKEN_abc-123");
    expect(link).toBe("https://example.com/confirm?token=TOKEN_abc-123");
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`href="${link}"`);
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("Alex Placeholder");
      expect(part).toContain("example.com");
      expect(part).toContain("ignoring this mail is enough to stay off the list");
    }
    expect(mail.subject).toBe("Confirm your subscription to Alex Placeholder's updates");
    expect(mail.html).not.toMatch(/<img/i);
  });
});

describe("the page a sign-up was posted from", () => {
  const site = "https://alex.example/?index";
  it("is the path of a Referer on the site itself, without its query", () => {
    expect(consentPageOf("https://alex.example/updates/first-week?utm_source=x", site)).toBe("/updates/first-week");
    expect(consentPageOf("https://alex.example/", site)).toBe("/");
  });

  it("is the home page when the Referer is missing, foreign or not a URL", () => {
    expect(consentPageOf(null, site)).toBe("/");
    expect(consentPageOf("https://elsewhere.example/updates/first-week", site)).toBe("/");
    expect(consentPageOf("not a url", site)).toBe("/");
    expect(consentPageOf(`https://alex.example/${"x".repeat(300)}`, site)).toBe("/");
  });
});
