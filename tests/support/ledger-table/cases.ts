/**
 * The ledger's table (app/newsletter/list/ledger.ts) as cases a store can be put through: each starting state a
 * mailbox can be in, how a store is brought there by its own doors, and what a store is seen to hold afterwards.
 */
import type { Door, LeftReason, MailboxState } from "~/newsletter/list/ledger";

/** The address every case is about; one mailbox. */
export const ADDRESS = "ada@example.com";

/** A starting state, with the tombstone's reason for `left` and whether the reader signed up here (by the form). */
export interface Start {
  name: string;
  state: MailboxState;
  reason: LeftReason | null;
  signedUpHere: boolean;
}

export const STARTS: readonly Start[] = [
  { name: "absent", state: "absent", reason: null, signedUpHere: false },
  { name: "pending", state: "pending", reason: null, signedUpHere: true },
  { name: "confirmed (by the form)", state: "confirmed", reason: null, signedUpHere: true },
  { name: "confirmed (imported)", state: "confirmed", reason: null, signedUpHere: false },
  { name: "pending after leaving", state: "pending", reason: "unsubscribed", signedUpHere: true },
  { name: "left: unsubscribed", state: "left", reason: "unsubscribed", signedUpHere: false },
  { name: "left: complained", state: "left", reason: "complained", signedUpHere: true },
  { name: "left: bounced", state: "left", reason: "bounced", signedUpHere: true },
  { name: "left: imported", state: "left", reason: "imported", signedUpHere: false },
];

/** What a store holds of the mailbox: its state and its tombstone's reason, if any. */
export interface Seen {
  state: MailboxState;
  tombstone: LeftReason | null;
}

/** A store as the table test drives it: brought to a start by its own doors, one door, then looked at. */
export interface TableStore {
  reset(): Promise<void>;
  /** Runs a door; false when this store has no such door (Supabase keeps no backups of ours: no restore). */
  door(door: Door): Promise<boolean>;
  seen(): Promise<Seen>;
}

/** The doors that bring a fresh store to `start`. */
export function pathTo(start: Start): Door[] {
  switch (start.name) {
    case "absent":
      return [];
    case "pending":
      return ["sign-up"];
    case "confirmed (by the form)":
      return ["sign-up", "confirm"];
    case "confirmed (imported)":
      return ["import-subscribed"];
    case "pending after leaving":
      return ["sign-up", "confirm", "unsubscribe", "sign-up"];
    case "left: unsubscribed":
      return ["sign-up", "confirm", "unsubscribe"];
    case "left: complained":
      return ["sign-up", "confirm", "complaint"];
    case "left: bounced":
      return ["sign-up", "confirm", "bounce"];
    case "left: imported":
      return ["import-left"];
    default:
      throw new Error(`no way to ${start.name}`);
  }
}

/** What the store holds: a row that may be mailed or is waiting names the state; a tombstone alone is `left`. */
export function seenOf(
  row: { state: "pending" | "confirmed"; suppressed: boolean } | null,
  tombstone: LeftReason | null,
): Seen {
  if (row && !row.suppressed) return { state: row.state, tombstone };
  if (tombstone || row) return { state: "left", tombstone };
  return { state: "absent", tombstone };
}
