// What the outbox keeps of one recipient across sends: their address goes when the owner erases them, what became of
// their mail stays (the send's record), and a relay's later refusal is written into that record.
import type { DatabaseSync } from "node:sqlite";

/** Erases the address from every row; each row keeps its place in its send's record and its recorded refusal. */
export const removeRecipient = (db: DatabaseSync, email: string): number =>
  Number(
    db
      .prepare(
        "update mail_outbox set recipient = 'erased-' || id || '@invalid', " +
          "payload = iif(json_extract(payload, '$.refusal') is null, '{}', " +
          "json_object('refusal', json_extract(payload, '$.refusal'))), " +
          "state = iif(state in ('queued', 'sending'), 'skipped', state), " +
          "last_error = iif(state in ('queued', 'sending'), 'removed by the owner', last_error), " +
          "claimed_by = null, lease_until = null where lower(recipient) = lower(?)",
      )
      .run(email).changes,
  );

/** Notes the refusal on each update mail handed to the address or refused; a complaint is never written over. */
export const noteRefusal = (db: DatabaseSync, email: string, reason: "bounced" | "complained"): number =>
  Number(
    db
      .prepare(
        "update mail_outbox set payload = json_set(coalesce(payload, '{}'), '$.refusal', ?) " +
          "where kind = 'update' and state in ('sent', 'failed') and lower(recipient) = lower(?) " +
          "and coalesce(json_extract(payload, '$.refusal'), '') not in (?, 'complained')",
      )
      .run(reason, email, reason).changes,
  );
