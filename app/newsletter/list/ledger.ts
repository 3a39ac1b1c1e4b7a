/**
 * The ledger's rules: every door to the list as a named transition over the state of one mailbox, written once. Pure.
 * The embedded list asks this table at each door and does only the reading and writing (sqlite/mailbox-state.server.ts
 * reads the state it is asked about); the Supabase migrations carry the same rules in PL/pgSQL, atomic in the
 * database, and tests/integration/newsletter/list/ledger-table.test.ts runs every door from every state on both stores
 * against this table. docs/newsletter.md prints it. See docs/decisions/026-one-ledger.md and 027-ledger-executor.md.
 *
 * A mailbox (app/newsletter/sign-up/mailbox-key.ts folds the spellings that reach one inbox) is in one of four states:
 * - `absent`: the list knows nothing of it;
 * - `pending`: signed up, waiting for the reader to press 'Confirm' (a pending sign-up may follow a leaving: the
 *   tombstone stays until the confirmation lifts it);
 * - `confirmed`: a reader, mailed every update;
 * - `left`: a tombstone (a keyed hash of the mailbox, the reason and the time) and no mailable row: no mail of any
 *   kind but the confirmation the person asks for themselves by signing up again.
 */

/** Why a mailbox is tombstoned. 'imported': an import said the reader left, bounced or complained at another tool. */
export type LeftReason = "unsubscribed" | "complained" | "bounced" | "imported";

export const LEFT_REASONS: readonly LeftReason[] = ["unsubscribed", "complained", "bounced", "imported"];

export const isLeftReason = (value: unknown): value is LeftReason =>
  typeof value === "string" && (LEFT_REASONS as readonly string[]).includes(value);

/**
 * The reader's own acts: only the person can undo them, by signing up again and confirming by mail. A bounce (the
 * relay's verdict on the mailbox) and an import's word are the owner's to lift (`unsuppress`).
 */
export const isOwnAct = (reason: LeftReason) => reason === "unsubscribed" || reason === "complained";

/** Which reason a tombstone keeps when a second one comes: the reader's own act outranks a bounce, which outranks an import. */
const RANK: Record<LeftReason, number> = { imported: 0, bounced: 1, unsubscribed: 2, complained: 3 };

/** The reason a mailbox's tombstone holds after `next` arrives where `current` was (or nothing). */
export const strongerReason = (current: LeftReason | null, next: LeftReason): LeftReason =>
  current !== null && RANK[current] > RANK[next] ? current : next;

export type MailboxState = "absent" | "pending" | "confirmed" | "left";

export type Door =
  | "sign-up"
  | "sign-up-without-mail"
  | "confirm"
  | "expire"
  | "unsubscribe"
  | "relay-unsubscribe"
  | "complaint"
  | "bounce"
  | "remove"
  | "import-subscribed"
  | "import-left"
  | "restore"
  | "restore-pending"
  | "unsuppress";

export const DOORS: readonly Door[] = [
  "sign-up",
  "sign-up-without-mail",
  "confirm",
  "expire",
  "unsubscribe",
  "relay-unsubscribe",
  "complaint",
  "bounce",
  "remove",
  "import-subscribed",
  "import-left",
  "restore",
  "restore-pending",
  "unsuppress",
];

export const STATES: readonly MailboxState[] = ["absent", "pending", "confirmed", "left"];

/** What one door does to a mailbox: where it goes, what it does to the tombstone, whether a mail goes out. */
export interface Transition {
  to: MailboxState;
  /** Write (or strengthen) the tombstone with this reason; "lift": remove it; null: leave it as it is. */
  tombstone: LeftReason | "lift" | null;
  /** A confirmation mail is queued. */
  confirmationMail?: boolean;
  /** The door changes nothing here, and why (what the owner or visitor is told). */
  refused?: string;
}

const stay = (to: MailboxState, refused?: string): Transition => ({
  to,
  tombstone: null,
  ...(refused ? { refused } : {}),
});

const leave = (reason: LeftReason): Transition => ({ to: "left", tombstone: reason });

/**
 * The table: for each state, what each door does. `left` with an own act differs from `left` by a bounce or an import
 * only at `unsuppress` (see `unsuppressVerdict`), so the table takes the tombstone's reason there.
 */
export function transition(
  state: MailboxState,
  door: Door,
  reason: LeftReason | null = null,
  /** A row of the mailbox came from the site's own form: the person's word, which an import's does not outrank. */
  signedUpHere = false,
): Transition {
  switch (door) {
    case "sign-up":
      // A sign-up after leaving is a new sign-up: the person asked, so the confirmation goes to them.
      if (state === "confirmed") return stay("confirmed", "already subscribed");
      return { to: "pending", tombstone: null, confirmationMail: true };
    case "sign-up-without-mail":
      // With mail off nothing can confirm the person: a mailbox that left stays left (stored, never mailed), and a
      // pending sign-up keeps waiting for the confirmation it was mailed.
      if (state !== "absent") return stay(state, "already subscribed");
      return { to: "confirmed", tombstone: null };
    case "confirm":
      // The person's own confirmation by mail: the one door that lifts their own leaving.
      return state === "pending" ? { to: "confirmed", tombstone: "lift" } : stay(state, "no pending sign-up");
    case "expire":
      return state === "pending" ? stay(reason ? "left" : "absent") : stay(state);
    case "unsubscribe":
      // A mailbox that left by a bounce or an import keeps its row, and the row's link: the reader's own act then
      // outranks the reason it had.
      return state === "absent" ? stay(state, "unknown link") : leave("unsubscribed");
    case "relay-unsubscribe":
      // The reader's own act reported by the relay (Postmark's ManualSuppression): the relay knows the mailbox even
      // when the list no longer holds the address, as with a complaint.
      return leave("unsubscribed");
    case "complaint":
      return leave("complained");
    case "bounce":
      return leave("bounced");
    case "remove":
      // Erasure takes the address; a tombstone holds no address and stays, so the mailbox is still not mailed.
      return stay(reason ? "left" : "absent");
    case "import-subscribed":
      if (state === "absent") return { to: "confirmed", tombstone: null };
      return stay(state, state === "left" ? "left the list: an import never brings a reader back" : "on the list");
    case "import-left":
      // A reader of this mailbox who signed up here by the form keeps their own word, whatever became of it since.
      if (signedUpHere) return stay(state, "signed up here: their own word stands");
      return leave("imported");
    case "restore":
    case "restore-pending":
      // A backup's reader comes back only where the list knows nothing newer of the mailbox, in the state the backup
      // holds: a pending sign-up stays pending (its mailed link works again; no mail goes out), never confirmed.
      if (state === "absent") return { to: door === "restore" ? "confirmed" : "pending", tombstone: null };
      return stay(state, state === "left" ? "left since the backup" : "on the list");
    case "unsuppress": {
      if (state !== "left" || reason === null) return stay(state, "not suppressed");
      const verdict = unsuppressVerdict(reason);
      return verdict.lift ? { to: "confirmed", tombstone: "lift" } : stay("left", verdict.why);
    }
  }
}

/** Whether the owner's `unsuppress` may lift a tombstone of this reason, and if not, the words that say why. */
export function unsuppressVerdict(reason: LeftReason): { lift: true } | { lift: false; why: string } {
  if (reason === "complained") {
    return {
      lift: false,
      why: "the reader marked a mail as spam: only their own new sign-up, confirmed by mail, brings them back",
    };
  }
  if (reason === "unsubscribed") {
    return {
      lift: false,
      why: "the reader unsubscribed: only their own new sign-up, confirmed by mail, brings them back",
    };
  }
  return { lift: true };
}

/** A suppressed row's reason as the tombstone reason it stands for (an imported 'unsubscribed' row is the import's). */
export const leftReasonOfRow = (rowReason: string, imported: boolean): LeftReason =>
  imported ? "imported" : isLeftReason(rowReason) ? rowReason : "imported";
