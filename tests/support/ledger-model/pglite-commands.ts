/**
 * The ledger's model-based test against Supabase: the real migrations in PGlite, each door called as the server, the
 * update command or the owner calls it (anon functions, service role functions and tool code, the SQL editor), beside
 * the embedded test's model of who left (./commands.ts). One database a run, emptied before each sequence.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { isOwnAct, type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";
import { consentVersion, dialogConsent } from "~/newsletter/sign-up/consent.server";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { checkedBackup } from "~/newsletter/backups/restore.server";
import { ownerBackupOver } from "~/newsletter/list/supabase/owner-backup.server";
import { writePagedBackup } from "~/newsletter/list/sqlite/paged-backup-file.server";
import { asRole, sendReaders, serviceRoleRpc } from "../pglite-migrations";
import { ADDRESSES } from "./commands";

export const SIGNING_KEY = "s".repeat(40);

interface PgModel {
  left: Map<string, LeftReason>;
  tokens: Map<string, string>;
  /** Each backup: its file, who was on the list and who had left then. */
  backups: { file: string; addresses: Set<string>; left: Map<string, LeftReason> }[];
}

interface PgReal {
  db: PGlite;
  serial: number;
  dir: string;
}

const answer = async (real: PgReal, role: string, sql: string, params: unknown[] = []) =>
  asRole(real.db, role, async (tx) => (await tx.query<{ a: unknown }>(`select ${sql} as a`, params)).rows[0]!.a);

const mailbox = (email: string) => mailboxKey(email);
const leave = (model: PgModel, email: string, reason: LeftReason) =>
  model.left.set(mailbox(email), strongerReason(model.left.get(mailbox(email)) ?? null, reason));

type Cmd = fc.AsyncCommand<PgModel, PgReal>;

const door = (name: string, run: (model: PgModel, real: PgReal) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (model, real) => {
    await run(model, real);
    await checkInvariants(model, real);
  },
  toString: () => name,
});

const signUp = (email: string) =>
  door(`signUp(${email})`, async (model, real) => {
    // The wording's version as the site makes it (its digest): a backup's check holds it to that.
    const signed = await answer(real, "anon", "public.newsletter_sign_up($1, '/', $2, 'words')", [
      email,
      consentVersion("words"),
    ]);
    if (signed !== "subscribed" && signed !== "resend") return;
    const token = `token-${++real.serial}`;
    const hash = createHash("sha256").update(token).digest("hex");
    const now = Date.now();
    const issued = await answer(real, "anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", [
      email,
      hash,
      now,
      issueSignature(SIGNING_KEY, email, hash, now),
    ]);
    if (issued === "issued") model.tokens.set(email.toLowerCase(), token);
  });

/**
 * The dialog while mail is off: the server holds no SUPABASE_CONFIRM_SECRET, so the database holds no signing key, and
 * the site calls the sign-up function with the anon key and the dialog's consent (stored confirmed at once, or kept
 * from the mail if its mailbox left). The key is taken away for this one call and put back, in one transaction.
 */
const signUpWithoutMail = (email: string) =>
  door(`signUpWithoutMail(${email})`, async (_model, real) => {
    const consent = dialogConsent("/");
    await real.db.transaction(async (tx) => {
      const key = await tx.query<{ value: string }>(
        "delete from newsletter_private.settings where name = 'confirm_signing_key' returning value",
      );
      await tx.exec("set local role anon");
      const answer = await tx.query<{ a: string }>(
        "select public.newsletter_sign_up_without_mail($1, $2, $3, $4) as a",
        [email, consent.page, consent.version, consent.wording],
      );
      if (answer.rows[0]?.a !== "subscribed" && answer.rows[0]?.a !== "duplicate") {
        throw new Error(`the sign-up without mail answered ${JSON.stringify(answer.rows[0]?.a)}`);
      }
      await tx.exec("reset role");
      await tx.query("insert into newsletter_private.settings (name, value) values ('confirm_signing_key', $1)", [
        key.rows[0]!.value,
      ]);
    });
  });

const confirm = (email: string) =>
  door(`confirm(${email})`, async (model, real) => {
    const token = model.tokens.get(email.toLowerCase());
    if (!token) return;
    const confirmed = await answer(real, "anon", "public.newsletter_confirm_reader($1)", [token]);
    if (confirmed === "confirmed") model.left.delete(mailbox(email));
  });

/** Eight days pass: every stored time moves back, and the expiry runs as a sign-up runs it. */
const expire = () =>
  door("expire()", async (_model, real) => {
    await real.db.exec(
      "update public.newsletter_subscribers set created_at = created_at - interval '8 days', " +
        "confirm_requested_at = confirm_requested_at - interval '8 days', " +
        "confirm_token_at = confirm_token_at - interval '8 days', " +
        "previous_confirm_token_at = previous_confirm_token_at - interval '8 days'; " +
        "select newsletter_private.expire_pending();",
    );
  });

const unsubscribe = (email: string) =>
  door(`unsubscribe(${email})`, async (model, real) => {
    const row = await real.db.query<{ token: string }>(
      "select unsubscribe_token as token from public.newsletter_subscribers where lower(email) = lower($1)",
      [email],
    );
    const token = row.rows[0]?.token;
    if (!token) return;
    if ((await answer(real, "anon", "public.unsubscribe_newsletter($1)", [token])) === true) {
      leave(model, email, "unsubscribed");
    }
  });

const relayVerdict = (email: string, reason: "complained" | "bounced" | "unsubscribed") =>
  door(`${reason}(${email})`, async (model, real) => {
    // The update command's way in (the service role), as a 5xx at RCPT during a send.
    await answer(real, "service_role", "public.newsletter_suppress($1, $2, 'words', $3, null, null)", [
      email,
      reason,
      Date.now(),
    ]);
    leave(model, email, reason);
  });

const softBounces = (email: string) =>
  door(`softBounce×3(${email})`, async (model, real) => {
    let last: unknown = null;
    for (let n = 1; n <= 3; n++) {
      last = await answer(real, "service_role", "public.newsletter_soft_bounce($1, '452', $2, null, null)", [
        email,
        Date.now() + ++real.serial,
      ]);
    }
    if (last === "suppressed") leave(model, email, "bounced");
  });

/** The owner erases an address in the SQL editor. */
const remove = (email: string) =>
  door(`remove(${email})`, async (_model, real) => {
    await real.db.query("delete from public.newsletter_subscribers where lower(email) = lower($1)", [email]);
  });

/** The owner erases one of the rows on the list (the n-th, oldest first), as they would pick one in the editor. */
const removeListed = (n: number) =>
  door(`removeListed(${n})`, async (model, real) => {
    const rows = await real.db.query<{ email: string }>("select email from public.newsletter_subscribers order by id");
    const chosen = rows.rows[n % Math.max(1, rows.rows.length)]?.email;
    if (chosen) await remove(chosen).run(model, real);
  });

const owner = (real: PgReal) => ownerBackupOver(serviceRoleRpc(real.db), { pageSize: 3 });

const listed = async (real: PgReal) =>
  new Set(
    (
      await real.db.query<{ email: string }>("select lower(email) as email from public.newsletter_subscribers")
    ).rows.map((row) => row.email),
  );

const backup = () =>
  door("backup()", async (model, real) => {
    const file = path.join(real.dir, `b${++real.serial}.sqlite`);
    await writePagedBackup(file, owner(real).pages());
    model.backups.push({ file, addresses: await listed(real), left: new Map(model.left) });
    const [listing] = listBackups(real.dir).filter((entry) => entry.file === file);
    if (typeof listing?.subscribers !== "number") throw new Error(`backups calls ${file} ${JSON.stringify(listing)}`);
  });

const restore = (which: number) =>
  door(`restore(${which})`, async (model, real) => {
    const chosen = model.backups[which % Math.max(1, model.backups.length)];
    if (!chosen) return;
    const before = await listed(real);
    // Who is a reader now, as the restore's tombstones (written first) find them.
    const mailable = new Set((await sendReaders(real.db)).map(mailbox));
    await owner(real).restore(checkedBackup(chosen.file));
    // The backup's tombstones come back, never weakened; not over a person who is a reader again since.
    for (const [box, reason] of chosen.left) {
      if (model.left.has(box) || !mailable.has(box))
        model.left.set(box, strongerReason(model.left.get(box) ?? null, reason));
    }
    // Every address of the backup the list lacked comes back (removed by mistake, expired), unless its mailbox left.
    const after = await listed(real);
    for (const email of chosen.addresses) {
      if (before.has(email) || model.left.has(mailbox(email)) || after.has(email)) continue;
      throw new Error(`restore did not bring back ${email}, absent from the list and not gone from it`);
    }
  });

/** A backup, the owner's removal of a listed reader, and the restore of that backup: the path a mistake takes. */
const mistakeUndone = (n: number) =>
  door(`mistakeUndone(${n})`, async (model, real) => {
    for (const step of [backup(), removeListed(n), restore(model.backups.length)]) await step.run(model, real);
  });

const importRow = (email: string, left: boolean) =>
  door(`import${left ? "Left" : "Subscribed"}(${email})`, async (model, real) => {
    const rows = await real.db.query<{ email: string; page: string | null }>(
      "select email, consent_page as page from public.newsletter_subscribers",
    );
    const here = rows.rows.some((row) => mailbox(row.email) === mailbox(email) && (row.page ?? "/").startsWith("/"));
    await answer(real, "service_role", "public.newsletter_import_reader($1, null, now(), $2, $3, $4)", [
      email,
      "imported from export.csv (Mailchimp)",
      left ? "unsubscribed" : null,
      left ? "said so" : null,
    ]);
    if (left && !here) leave(model, email, "imported");
  });

const unsuppress = (email: string) =>
  door(`unsuppress(${email})`, async (model, real) => {
    const before = model.left.get(mailbox(email));
    const outcome = await answer(real, "service_role", "public.newsletter_unsuppress($1, null, null)", [email]);
    if (before && isOwnAct(before) && outcome === "lifted") throw new Error(`unsuppress lifted a ${before}`);
    if (outcome === "lifted") model.left.delete(mailbox(email));
  });

async function checkInvariants(model: PgModel, real: PgReal) {
  for (const email of await sendReaders(real.db)) {
    if (model.left.has(mailbox(email))) throw new Error(`${email} left and is still mailed`);
  }
  // Every reader has a consent record: the page (an import's note), when they were confirmed, and for a sign-up by the
  // form the wording they agreed to.
  const unrecorded = await real.db.query<{ email: string }>(
    "select email from public.newsletter_subscribers s where state = 'confirmed' and suppressed_reason is null " +
      "and (consent_page is null or confirmed_at is null or (consent_page like '/%' and not exists (" +
      "select 1 from public.newsletter_consent_wordings w where w.version = s.consent_version)))",
  );
  if (unrecorded.rows.length > 0)
    throw new Error(`a reader without a consent record: ${JSON.stringify(unrecorded.rows)}`);
  const { n } = (await real.db.query<{ n: number }>("select count(*)::int as n from newsletter_private.tombstones"))
    .rows[0]!;
  if (n !== model.left.size) throw new Error(`${n} tombstones, where ${model.left.size} mailboxes left`);
}

const address = fc.constantFrom(...ADDRESSES);

const commands = [
  address.map(signUp),
  address.map(signUp),
  address.map(confirm),
  address.map(confirm),
  fc.constant(expire()),
  address.map(unsubscribe),
  address.map((email) => relayVerdict(email, "complained")),
  address.map((email) => relayVerdict(email, "bounced")),
  // Postmark's Subscription Change with ManualSuppression: the reader's own unsubscribe at the relay.
  address.map((email) => relayVerdict(email, "unsubscribed")),
  address.map(signUpWithoutMail),
  address.map(softBounces),
  address.map(remove),
  address.map((email) => importRow(email, false)),
  address.map((email) => importRow(email, true)),
  address.map(unsuppress),
  fc.nat(5).map(removeListed),
  fc.constant(backup()),
  fc.nat(4).map(restore),
  fc.nat(5).map(mistakeUndone),
];

/** One property over random sequences of doors, on a database the migrations made (emptied before each sequence). */
export const supabaseLedgerProperty = (db: PGlite, maxCommands: number) =>
  fc.asyncProperty(fc.commands(commands, { maxCommands }), async (sequence) => {
    await db.exec("truncate public.newsletter_subscribers; truncate newsletter_private.tombstones;");
    const dir = mkdtempSync(path.join(tmpdir(), "ledger-model-pg-"));
    const setup = () => ({
      model: { left: new Map(), tokens: new Map(), backups: [] },
      real: { db, serial: 0, dir },
    });
    try {
      await fc.asyncModelRun(setup, sequence);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
