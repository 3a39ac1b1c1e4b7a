// Tombstones carried from an earlier list in Supabase (supabase/migrations/20261128500000_newsletter_carried_tombstones.sql)
// on the real migrations in PGlite: a new project where one reader has left already, then the owner restores the old
// project's backup, made with another ledger key. Everyone who had left the old list must stay left at every door but
// their own confirmation, as the embedded list holds them (tests/integration/newsletter/backups/restore-fresh-list.test.ts).
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkedBackup } from "~/newsletter/backups/restore.server";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { ownerBackupOver } from "~/newsletter/list/supabase/owner-backup.server";
import { writePagedBackup } from "~/newsletter/list/sqlite/paged-backup-file.server";
import { asRole, sendReaders, serviceRoleRpc, storeSigningKey } from "../../../support/pglite-migrations";
import { emptyList, rowOf, startDatabase } from "../../../support/stub-supabase/database";

const AT = "2026-11-20T10:00:00.000Z";
const LATER = "2026-11-22T10:00:00.000Z";
/** The old project's key, and the new project's own. */
const OLD_KEY = "a".repeat(64);
const OWN_KEY = "b".repeat(64);
const SIGNING_KEY = "s".repeat(40);
let db: PGlite;
let dir: string;

beforeAll(async () => {
  db = await startDatabase(undefined);
  dir = mkdtempSync(path.join(tmpdir(), "carried-supabase-"));
}, 120_000);
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new project (its own key, mail off) where Zed has left already: nobody's tombstones but his. */
beforeEach(async () => {
  await emptyList(db);
  await db.query(
    "delete from newsletter_private.settings where name in ('confirm_signing_key', 'ledger_key_adopted_at')",
  );
  await db.query("update newsletter_private.settings set value = $1 where name = 'ledger_key'", [OWN_KEY]);
  await db.query("insert into public.newsletter_subscribers (email) values ('zed@example.org'), ('eve@example.org')");
  const zed = await rowOf(db, "zed@example.org");
  await asRole(db, "anon", (tx) => tx.query("select public.unsubscribe_newsletter($1)", [zed!.unsubscribe_token]));
});

const old = (email: string) => mailboxHash(OLD_KEY, email);

/** The old project's backup: Ada unsubscribed, Bob complained, Cy bounced; Dee still reads; Bob's row was kept. */
const oldBackup = {
  key: OLD_KEY,
  tombstones: [
    { mailbox: old("ada@example.com"), reason: "unsubscribed", at: AT },
    { mailbox: old("bob@gmail.com"), reason: "complained", at: AT },
    { mailbox: old("cy@example.com"), reason: "bounced", at: AT },
  ],
  readers: [
    { email: "dee@example.com", createdAt: AT, state: "confirmed", confirmedAt: AT, consentPage: "/" },
    {
      email: "bob@gmail.com",
      createdAt: AT,
      state: "confirmed",
      confirmedAt: AT,
      consentPage: "/",
      suppressedReason: "complained",
      suppressedAt: AT,
      suppressedDetail: "abuse report",
    },
  ],
};

const restore = async (backup: { key: string; tombstones: unknown[]; readers: unknown[] }) =>
  (
    await db.query<{ answer: Record<string, unknown> }>(
      "select public.newsletter_restore_page($1, $2::jsonb, $3::jsonb, '[]'::jsonb) as answer",
      [backup.key, JSON.stringify(backup.readers), JSON.stringify(backup.tombstones)],
    )
  ).rows[0]!.answer;

const call = async (sql: string, args: unknown[], role = "service_role") =>
  (await asRole(db, role, (tx) => tx.query<{ a: string }>(`select ${sql} as a`, args))).rows[0]!.a;

const importReader = (email: string) =>
  call("public.newsletter_import_reader($1, $2, $3, $4, null, null)", [
    email,
    AT,
    LATER,
    "imported from subscribers.csv (Mailchimp)",
  ]);

const lift = async (email: string) =>
  (await db.query<{ a: string }>("select newsletter_private.lift($1) as a", [email])).rows[0]!.a;

/** Where each mailbox's tombstone is kept: the list's own, or carried with the old key. */
async function ledger() {
  const own = await db.query<{ reason: string }>("select reason from newsletter_private.tombstones order by reason");
  const carried = await db.query<{ key: string; reason: string }>(
    "select key, reason from newsletter_private.carried_tombstones order by reason",
  );
  return { own: own.rows.map((row) => row.reason), carried: carried.rows };
}

/** A person's own sign-up with mail on, and their press of the mailed link, as the server makes them. */
async function signUpAndConfirm(email: string, token: string) {
  await storeSigningKey(db, SIGNING_KEY);
  const signedUp = await call("public.newsletter_sign_up($1, '/', 'v1', 'Updates by mail')", [email], "anon");
  const tokenHash = createHash("sha256").update(token).digest("hex");
  const issuedAt = Date.now();
  const signature = createHmac("sha256", SIGNING_KEY).update(`${email}\n${tokenHash}\n${issuedAt}`).digest("hex");
  const issued = await call(
    "public.newsletter_issue_confirm_token($1, $2, $3, $4)",
    [email, tokenHash, issuedAt, signature],
    "anon",
  );
  return { signedUp, issued, confirm: () => call("public.newsletter_confirm_reader($1)", [token], "anon") };
}

describe("a restore of another project's backup into a list someone has left already", () => {
  it("carries its tombstones and keeps every mailbox that left from any door but the person's own confirmation", async () => {
    expect(await restore(oldBackup)).toMatchObject({
      added: ["dee@example.com", "bob@gmail.com"],
      tombstonesCarried: 3,
      tombstonesAdded: 0,
    });
    const key = await db.query<{ value: string }>(
      "select value from newsletter_private.settings where name = 'ledger_key'",
    );
    expect(key.rows[0]!.value).toBe(OWN_KEY);
    // Bob's row came back as the record it was (met by the restore, his tombstone moved to the list's key).
    expect(await ledger()).toEqual({
      own: ["complained", "unsubscribed"],
      carried: [
        { key: OLD_KEY, reason: "bounced" },
        { key: OLD_KEY, reason: "unsubscribed" },
      ],
    });

    // The next import of the old export brings none of them back, in any spelling.
    expect(await importReader("ada@example.com")).toBe("exists");
    expect(await importReader("Ada+news@Example.com")).toBe("exists");
    expect(await importReader("cy@example.com")).toBe("exists");
    expect(await importReader("dee@example.com")).toBe("exists");
    expect(await sendReaders(db)).toEqual(["eve@example.org", "dee@example.com"]);
    // A sign-up while mail is off, of another spelling of Bob's mailbox, is stored and never mailed.
    expect(
      await call(
        "public.newsletter_sign_up_without_mail($1, '/', 'v1', 'Updates')",
        ["b.o.b+news@googlemail.com"],
        "anon",
      ),
    ).toBe("subscribed");
    expect(await rowOf(db, "b.o.b+news@googlemail.com")).toMatchObject({ suppressed_reason: "complained" });
    expect(await sendReaders(db)).toEqual(["eve@example.org", "dee@example.com"]);

    // The owner cannot lift a reader's own act; a bounce they can.
    expect(await lift("ada@example.com")).toBe("kept-unsubscribed");
    expect(await lift("bob@gmail.com")).toBe("kept-complained");
    expect(await lift("cy@example.com")).toBe("lifted");
    expect(await ledger()).toEqual({ own: ["complained", "unsubscribed", "unsubscribed"], carried: [] });
    expect(await importReader("cy@example.com")).toBe("added");

    // Ada's own new sign-up is a new one (a mail goes), and her confirmation brings her back.
    const ada = await signUpAndConfirm("ada@example.com", "ada-again");
    expect(ada).toMatchObject({ signedUp: "subscribed", issued: "issued" });
    expect(await ada.confirm()).toBe("confirmed");
    expect(await sendReaders(db)).toEqual(["eve@example.org", "dee@example.com", "cy@example.com", "ada@example.com"]);
    expect((await ledger()).own).toEqual(["complained", "unsubscribed"]);
  });

  it("holds the live list's readers to them, unless the person confirmed by mail since; a waiting sign-up waits", async () => {
    // Ada left the old list, then signed up in the new one and confirmed by her own mail, after she left.
    await db.query(
      "insert into public.newsletter_subscribers (email, state, consent_page, confirm_token_hash, confirmed_at) " +
        "values ('ada@example.com', 'confirmed', '/', $1, $2)",
      ["c".repeat(64), LATER],
    );
    // Cy's address came into the new list by an import, which never outranks a mailbox's leaving.
    expect(await importReader("Cy@example.com")).toBe("added");
    // Bob signs up again in the new list, with another spelling, and has not confirmed yet.
    const bob = await signUpAndConfirm("bob+new@gmail.com", "bob-new");
    expect(bob).toMatchObject({ signedUp: "subscribed", issued: "issued" });

    await restore({ ...oldBackup, readers: [] });
    expect(await sendReaders(db)).toEqual(["eve@example.org", "ada@example.com"]);
    expect(await rowOf(db, "Cy@example.com")).toMatchObject({
      suppressed_reason: "bounced",
      suppressed_detail: "the mailbox left the list before",
    });
    // Ada's leaving was lifted by her confirmation; Cy's and Bob's moved to the list's key; nothing is carried of them.
    expect(await ledger()).toEqual({ own: ["bounced", "complained", "unsubscribed"], carried: [] });
    // Bob's sign-up still waits, and his confirmation lifts his complaint: he asked again himself.
    expect(await rowOf(db, "bob+new@gmail.com")).toMatchObject({ state: "pending", suppressed_reason: null });
    expect(await bob.confirm()).toBe("confirmed");
    expect(await sendReaders(db)).toEqual(["eve@example.org", "ada@example.com", "bob+new@gmail.com"]);
  });

  it("a backup of the list carries them on with their key, and a restore into a third list keeps them", async () => {
    await restore(oldBackup);
    const owner = ownerBackupOver(serviceRoleRpc(db), { pageSize: 2 });
    const file = path.join(dir, "second.sqlite");
    await writePagedBackup(file, owner.pages());
    const checked = checkedBackup(file);
    expect(checked.ledger.key).toBe(OWN_KEY);
    const named = checked.ledger.tombstones.map(({ key, reason }) => `${reason} ${key ?? "own"}`).sort();
    expect(named).toEqual([`bounced ${OLD_KEY}`, "complained own", `unsubscribed ${OLD_KEY}`, "unsubscribed own"]);

    // The project is lost again; a third one, with its own key, where somebody has left already.
    await emptyList(db);
    await db.query("update newsletter_private.settings set value = $1 where name = 'ledger_key'", ["d".repeat(64)]);
    await db.query("insert into newsletter_private.tombstones (mailbox, reason, at) values ($1, 'bounced', $2)", [
      mailboxHash("d".repeat(64), "gone@example.org"),
      AT,
    ]);
    const report = await owner.restore(checked);
    expect(report.tombstones).toEqual({ added: 0, kept: 0, carried: 4 });
    expect(await importReader("ada@example.com")).toBe("exists");
    expect(await importReader("zed@example.org")).toBe("exists");
    expect(await importReader("cy@example.com")).toBe("exists");
    expect(await sendReaders(db)).toEqual(["eve@example.org", "dee@example.com"]);
  });
});
