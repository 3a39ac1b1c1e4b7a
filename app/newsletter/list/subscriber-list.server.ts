/**
 * The subscriber list: the one interface every part of the newsletter uses (the sign-up, the confirm and unsubscribe
 * pages, the send, the backups, the owner's tools), with one adapter per place the list can live: the embedded SQLite
 * file (./sqlite/) or Supabase (./supabase/). Only the code under this folder knows the table; no caller gets a
 * database. Times are milliseconds since the epoch, passed in so tests can move the clock.
 *
 * Every door is a transition of the ledger (./ledger.ts): who left is remembered by mailbox (a tombstone, never the
 * address), and no import, restore or owner's command brings them back; only their own confirmed sign-up does.
 */
import { createHash } from "node:crypto";
import type { LeftReason } from "~/newsletter/list/ledger";

/** What became of one sign-up; each outcome has its own toast (app/newsletter/messages.ts). */
export type SubscribeOutcome = "subscribed" | "duplicate" | "failed";

/**
 * What became of an unsubscribe request: "removed" when the token belonged to a subscriber, "unknown" when it belongs
 * to nobody (never given, or already used). The page answers both alike; only unknown tokens count against the
 * unsubscribe rate limit, so a mail provider's one-click posts for many readers from one address are all honoured.
 */
export type UnsubscribeOutcome = "removed" | "unknown" | "failed";

/** What a reader agreed to, and where: kept with every pending sign-up (proof of consent). */
export interface Consent {
  /** The page whose form was used (a path on the site). */
  page: string;
  wording: string;
  version: string;
}

/**
 * How a sign-up is stored, always with the consent the reader gave: `confirmed` at once (mail is off, so nobody could
 * confirm), or `pending` until they press 'Confirm' on the page their mail links to. `mayMail: false` (the fair limits
 * on confirmation mails are reached): a sign-up that would need a mail stores nothing and is answered as if it had.
 */
export type SignUpRequest =
  | { state: "confirmed"; consent: Consent; now: number }
  | { state: "pending"; consent: Consent; now: number; mayMail?: boolean };

export interface SignUp {
  outcome: SubscribeOutcome;
  /** Whether a confirmation mail is to be queued now (a pending sign-up, new or due a reminder). */
  mail: boolean;
  /** A mail was due, but `mayMail: false` held it back: nothing was stored. */
  held?: boolean;
}

/** What a confirm link found: the reader confirmed now, confirmed before with it, or nothing it opens. */
export type ConfirmOutcome = "confirmed" | "already" | "unknown";

/** What attaching a confirmation token found: the reader pending (issued), gone, or confirmed already. */
export type IssueOutcome = "issued" | "gone" | "confirmed";

/**
 * Why a reader gets no mail again: a relay refused the address for good, the reader pressed "spam", or the reader
 * left through a relay's own unsubscribe (Postmark's ManualSuppression).
 */
export type SuppressReason = "bounced" | "complained" | "unsubscribed";
/** What suppressing did: suppressed now, suppressed already, or no such reader (nothing stored). */
export type SuppressOutcome = "suppressed" | "already" | "unknown";
/** A soft bounce is "counted" until the third in a row, which suppresses. */
export type SoftBounceOutcome = SuppressOutcome | "counted";

/** What the owner's `unsuppress` did: lifted, nothing to lift, or refused (a reader's own act), with why. */
export type UnsuppressOutcome =
  { kind: "lifted" } | { kind: "not-suppressed" } | { kind: "refused"; reason: LeftReason; why: string };

/** A reader's suppression as the owner's tools show it ("unsubscribed": left at another tool, brought in by an import). */
export interface Suppression {
  reason: SuppressReason | "unsubscribed";
  at: string;
  /** The relay's words. */
  detail: string;
}

/** One reader of a send: their address and unsubscribe token (the mail's own link). */
export interface Reader {
  email: string;
  token: string;
}

/** What the owner's `show` prints: everything kept about one reader. */
export interface ConsentRecord {
  email: string;
  state: "pending" | "confirmed";
  signedUpAt: string;
  confirmedAt: string | null;
  page: string | null;
  wordingVersion: string | null;
  wording: string | null;
  confirmationRequestedAt: string | null;
  unsubscribeToken: string;
  /** Set when the reader gets no mail again, and why. */
  suppression?: Suppression | null;
}

/** One subscriber as the owner's tools show it. */
export interface SubscriberRow {
  email: string;
  createdAt: string;
  unsubscribeToken: string;
  /** "pending" until the reader confirms by mail (only when mail is on); readers from before are "confirmed". */
  state: "pending" | "confirmed";
  /** When they pressed 'Confirm'; null for readers from before confirmation, or with mail off. */
  confirmedAt: string | null;
  /** Set when the reader gets no mail again, and why. */
  suppression?: Suppression | null;
}

/** What a restore into the live list did. */
export interface AddBackReport {
  /** The addresses put back, in the backup's order. */
  added: string[];
  alreadyThere: number;
  /** Left out: these readers unsubscribed by their link after the backup was made. */
  unsubscribedSince: number;
}

/**
 * One subscriber as a backup holds it. A file from before tokens has no token (the store gives a new one); a file from
 * before double opt-in has no state or consent: those readers are confirmed, as the schema's migration says.
 */
export interface BackupRow {
  email: string;
  createdAt: string;
  unsubscribeToken: string | null;
  state?: "pending" | "confirmed";
  confirmedAt?: string | null;
  consentPage?: string | null;
  consentVersion?: string | null;
  confirmRequestedAt?: string | null;
  confirmTokenHash?: string | null;
  confirmTokenAt?: string | null;
  previousConfirmTokenHash?: string | null;
  previousConfirmTokenAt?: string | null;
  suppressedReason?: Suppression["reason"] | null;
  suppressedAt?: string | null;
  suppressedDetail?: string | null;
}

/** One tombstone as a backup holds it: a keyed hash of a mailbox (the key travels with it), why and when. */
export interface BackupTombstone {
  mailbox: string;
  reason: LeftReason;
  at: string;
  /**
   * Set on a tombstone the list carries from an earlier list with another key (./sqlite/carried-tombstones.server.ts):
   * the key its hash was made with. Absent: made with the list's own key.
   */
  key?: string;
}

/** One wording readers agreed to, as newsletter_consent_wordings holds it. */
export interface ConsentWording {
  version: string;
  wording: string;
  firstUsedAt: string;
}

export interface CopyOptions {
  /**
   * Pages copied per step (a page is 4 KiB). Between steps the event loop runs, and a sign-up on this connection
   * waits for one step at most; its pages go into the copy as it commits, so the copy holds every row up to the end.
   * A commit by another connection (another process) makes the copy start again, which a busy list could do forever:
   * a process that serves nobody (the owner's tools) copies the whole file in one step, one consistent snapshot.
   */
  stepPages?: number;
}

/** One reader an import brings in. */
export interface ImportedRow {
  email: string;
  /** When they signed up at the other tool, else when the import ran (ISO 8601). */
  createdAt: string;
  importedAt: string;
  consentNote: string;
  suppression: Suppression | null;
}

/** The owner's operations (npm run subscribers), where the list lives in this server's own file. */
export interface OwnerOperations {
  count(): number;
  /** Confirmed and pending readers, apart. */
  countByState(): { confirmed: number; pending: number };
  /** Whether the address is on the list in any state (the import never touches a reader already there). */
  has(email: string): boolean;
  /**
   * Stores readers brought from another tool, in one transaction, each confirmed, with where their consent was given
   * (`consentNote`); for each, false, changing nothing, when the address is there or its mailbox left. When the file
   * says they left or bounced there, the mailbox is tombstoned ('imported') and a reader already here from an import
   * is suppressed too (whatever the order of the files); true when that changed something. A reader who signed up here
   * keeps their own word. A reader that cannot be stored answers its error and changes nothing; the others are stored.
   */
  addImportedBatch(rows: readonly ImportedRow[]): (boolean | Error)[];
  /** One reader as addImportedBatch stores it; throws its error. */
  addImported(row: ImportedRow): boolean;
  /** Readers who get no mail again (bounced or complained), of either state. */
  countSuppressed(): number;
  /** The mailboxes that left (a keyed hash each, never the address), why and when, oldest first. */
  tombstones(): { reason: LeftReason; at: string }[];
  /** The tombstone of the mailbox this address reaches, if it left. */
  leftOf(email: string): { reason: LeftReason; at: string } | null;
  /** Every subscriber, oldest first. */
  rows(): SubscriberRow[];
  /** Everything kept about one address (GDPR art. 15), or null when it is not on the list. */
  show(email: string): ConsentRecord | null;
  /** Removes an address in any letter case; whether it was there. */
  remove(email: string): boolean;
  /**
   * A consistent copy of the whole list at `target` (which must not exist), safe while the server writes; answers how
   * many subscribers the copy holds.
   */
  backup(target: string, options?: CopyOptions): Promise<number>;
  /**
   * Puts rows of a backup back in one transaction: those not on the list, except readers who unsubscribed by their
   * link since (the list remembers their token). Rows whose address is on the list are left as they are. Each row
   * keeps its confirmation state and consent record; the wordings the list lacks are added. The backup's tombstones made
   * with another key than the list's are carried (a list begun anew since the backup), so nobody who left comes back.
   */
  addBack(
    rows: readonly BackupRow[],
    wordings?: readonly ConsentWording[],
    ledger?: { key: string | null; tombstones: readonly BackupTombstone[] },
  ): AddBackReport;
}

export interface SubscriberList {
  readonly kind: "sqlite" | "supabase";
  // What visitors do. Neither throws: a failure is logged with its cause and answered "failed".
  signUp(email: string, request: SignUpRequest): Promise<SignUp>;
  /** Removes the subscriber holding this unsubscribe token, if any. */
  unsubscribe(token: string): Promise<UnsubscribeOutcome>;
  // Double opt-in. These throw when the list cannot answer; the caller retries or answers "failed".
  /** Attaches the hash of the token about to be mailed to a pending reader. */
  issueConfirmToken(email: string, tokenHash: string, now: number): Promise<IssueOutcome>;
  /**
   * Confirms the pending reader this (mailed) token belongs to, if it is still valid; "already" when the token is
   * one a reader on the list confirmed with (a reused link), where the list can tell. `onConfirmed` is called with
   * the reader in the step that confirms them, once ("confirmed" only), where the list can tell who (the embedded one).
   */
  confirm(token: string, now: number, onConfirmed?: (reader: Reader) => void): Promise<ConfirmOutcome>;
  /** Removes pending readers whose 7 days are over. */
  expirePending(now: number): Promise<void>;
  // The readers of a send. Both throw with the reason when the list cannot be read.
  /** Every confirmed reader with their token, oldest first. */
  readers(): Promise<Reader[]>;
  /** Whether the token is a confirmed reader's now: asked before each mail, so a reader who left gets nothing. */
  isReader(token: string): Promise<boolean>;
  // Suppression: a suppressed reader gets no mail of any kind (no update, no confirmation) until the owner lifts it.
  /** Suppresses the reader with this address, with the relay's words and the time of the refusal. Throws on failure. */
  suppress(email: string, reason: SuppressReason, detail: string, at: Date): Promise<SuppressOutcome>;
  /** Counts one soft bounce; the third in a row (no delivery between) suppresses as bounced. Throws on failure. */
  softBounce(email: string, detail: string, at: Date): Promise<SoftBounceOutcome>;
  /** A mail was handed over for this reader: their soft bounces start again from none. */
  delivered(email: string): Promise<void>;
  /** Lifts a bounce or an import's suppression of the mailbox; refuses a reader's own act, saying why. */
  unsuppress(email: string): Promise<UnsuppressOutcome>;
  /** Every suppressed address (lower-cased) and why, for the owner's `status`. Throws when the list cannot be read. */
  suppressedAddresses(): Promise<Map<string, Suppression["reason"]>>;
  /** Whether a sign-up can be stored now (/healthz): never a network call. */
  healthy(): boolean;
  /** The owner's operations; null where the list lives in Supabase (its dashboard is the owner's tool there). */
  readonly owner: OwnerOperations | null;
  close(): void;
}

/** A confirm token is never stored, only this digest of it. */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
