/**
 * The ledger's model-based test against Supabase: the real migrations in PGlite, each door called as the server, the
 * update command or the owner calls it (the anon key's functions, the service role's, the SQL editor), beside the
 * same model of who left as the embedded store's test (./commands.ts). One database for a whole run, emptied before
 * each sequence (a fresh PGlite takes seconds to start). Supabase has no backups of ours, so no backup door.
 */
import { createHash } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { isOwnAct, type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { asRole, sendReaders } from "../pglite-migrations";
import { ADDRESSES } from "./commands";

export const SIGNING_KEY = "s".repeat(40);

interface PgModel {
  left: Map<string, LeftReason>;
  tokens: Map<string, string>;
}

interface PgReal {
  db: PGlite;
  serial: number;
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
    const signed = await answer(real, "anon", "public.newsletter_sign_up($1, '/', 'v1', 'words')", [email]);
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
];

/** One property over random sequences of doors, on a database the migrations made (emptied before each sequence). */
export const supabaseLedgerProperty = (db: PGlite, maxCommands: number) =>
  fc.asyncProperty(fc.commands(commands, { maxCommands }), async (sequence) => {
    await db.exec("truncate public.newsletter_subscribers; truncate newsletter_private.tombstones;");
    const setup = () => ({
      model: { left: new Map(), tokens: new Map() },
      real: { db, serial: 0 },
    });
    await fc.asyncModelRun(setup, sequence);
  });
