// The Supabase list as the ledger's table test drives it (./cases.ts): the real migrations in PGlite, each door called
// as the server, the update command or the owner calls it (as ../ledger-model/pglite-commands.ts does).
import { createHash, randomUUID } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type { Door, LeftReason } from "~/newsletter/list/ledger";
import { issueSignature } from "~/newsletter/list/supabase/double-opt-in.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { asRole } from "../pglite-migrations";
import { ADDRESS, seenOf, type TableStore } from "./cases";

export function supabaseStore(db: PGlite, signingKey: string): TableStore {
  let token: string | null = null;
  const call = async (role: string, sql: string, params: unknown[] = []) =>
    asRole(db, role, async (tx) => (await tx.query<{ a: unknown }>(`select ${sql} as a`, params)).rows[0]!.a);
  const imported = (left: boolean) =>
    call("service_role", "public.newsletter_import_reader($1, null, now(), $2, $3, $4)", [
      ADDRESS,
      "imported from export.csv (Mailchimp)",
      left ? "unsubscribed" : null,
      left ? "said so" : null,
    ]);
  const suppress = (reason: "bounced" | "complained" | "unsubscribed") =>
    call("service_role", "public.newsletter_suppress($1, $2, 'words', $3, null, null)", [ADDRESS, reason, Date.now()]);

  const doors: Record<Door, (() => Promise<unknown>) | null> = {
    "sign-up": async () => {
      const signed = await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'words')", [ADDRESS]);
      if (signed !== "subscribed" && signed !== "resend") return;
      const next = `token-${randomUUID()}`;
      const hash = createHash("sha256").update(next).digest("hex");
      const now = Date.now();
      const issued = await call("anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", [
        ADDRESS,
        hash,
        now,
        issueSignature(signingKey, ADDRESS, hash, now),
      ]);
      if (issued === "issued") token = next;
    },
    // The server without SUPABASE_CONFIRM_SECRET, so a database without the signing key: the site's call of the
    // sign-up function with the anon key and the dialog's consent.
    "sign-up-without-mail": () =>
      db.transaction(async (tx) => {
        const consent = dialogConsent("/");
        await tx.exec("delete from newsletter_private.settings where name = 'confirm_signing_key'");
        await tx.exec("set local role anon");
        await tx.query("select public.newsletter_sign_up_without_mail($1, $2, $3, $4)", [
          ADDRESS,
          consent.page,
          consent.version,
          consent.wording,
        ]);
        await tx.exec("reset role");
        await tx.query("insert into newsletter_private.settings (name, value) values ('confirm_signing_key', $1)", [
          signingKey,
        ]);
      }),
    confirm: async () => (token ? call("anon", "public.newsletter_confirm_reader($1)", [token]) : null),
    expire: () =>
      db.exec(
        "update public.newsletter_subscribers set created_at = created_at - interval '8 days', " +
          "confirm_requested_at = confirm_requested_at - interval '8 days', " +
          "confirm_token_at = confirm_token_at - interval '8 days', " +
          "previous_confirm_token_at = previous_confirm_token_at - interval '8 days'; " +
          "select newsletter_private.expire_pending();",
      ),
    unsubscribe: async () => {
      const { rows } = await db.query<{ token: string }>(
        "select unsubscribe_token as token from public.newsletter_subscribers where lower(email) = lower($1)",
        [ADDRESS],
      );
      if (rows[0]) await call("anon", "public.unsubscribe_newsletter($1)", [rows[0].token]);
    },
    "relay-unsubscribe": () => suppress("unsubscribed"),
    complaint: () => suppress("complained"),
    bounce: () => suppress("bounced"),
    // The owner's erasure in the SQL editor.
    remove: () => db.query("delete from public.newsletter_subscribers where lower(email) = lower($1)", [ADDRESS]),
    "import-subscribed": () => imported(false),
    "import-left": () => imported(true),
    // Supabase's own backups are the project's; the product keeps none of its own for it, so there is no restore.
    restore: null,
    "restore-pending": null,
    unsuppress: () => call("service_role", "public.newsletter_unsuppress($1, null, null)", [ADDRESS]),
  };

  return {
    async reset() {
      await db.exec("truncate public.newsletter_subscribers; truncate newsletter_private.tombstones;");
      token = null;
    },
    async door(door) {
      const run = doors[door];
      if (!run) return false;
      await run();
      return true;
    },
    async seen() {
      const row = await db.query<{ state: "pending" | "confirmed"; suppressed: boolean }>(
        "select state, suppressed_reason is not null as suppressed from public.newsletter_subscribers " +
          "where lower(email) = lower($1)",
        [ADDRESS],
      );
      const tombstone = await db.query<{ reason: LeftReason }>(
        "select reason from newsletter_private.tombstones where mailbox = newsletter_private.mailbox_hash($1)",
        [ADDRESS],
      );
      return seenOf(row.rows[0] ?? null, tombstone.rows[0]?.reason ?? null);
    },
  };
}
