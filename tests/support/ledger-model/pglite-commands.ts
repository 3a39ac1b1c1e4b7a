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
import { isOwnAct } from "~/newsletter/list/ledger";
import { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";
import { consentVersion, dialogConsent } from "~/newsletter/sign-up/consent.server";
import { ADDRESSES } from "./commands";
import { backup, loseAndRestore, restore } from "./pglite-backup-doors";
import { answer, door, leave, mailbox } from "./pglite-world";

export const SIGNING_KEY = "s".repeat(40);

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
  fc.nat(4).map(loseAndRestore),
];

/** One property over random sequences of doors, on a database the migrations made (emptied before each sequence). */
export const supabaseLedgerProperty = (db: PGlite, maxCommands: number) =>
  fc.asyncProperty(fc.commands(commands, { maxCommands }), async (sequence) => {
    await db.exec(
      "truncate public.newsletter_subscribers; truncate newsletter_private.tombstones; " +
        "truncate newsletter_private.carried_tombstones;",
    );
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
