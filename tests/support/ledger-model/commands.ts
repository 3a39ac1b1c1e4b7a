/**
 * The ledger's model-based test: random sequences of every door (sign-up, a sign-up while mail is off, confirm,
 * expiry, unsubscribe, complaint, bounce, a relay's unsubscribe (Postmark's ManualSuppression), three soft bounces,
 * the owner's remove, import subscribed and left, backup, restore, unsuppress, a send)
 * against the real embedded list, beside a small model of what the ledger promises (app/newsletter/list/ledger.ts).
 * After each step `checkInvariants` holds the list to those promises.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { restoreBackup } from "~/newsletter/backups/restore.server";
import { isOwnAct, type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { hashToken, type ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { checkInvariants, sendLine } from "./invariants";
import { withoutMail } from "../newsletter/without-mail";

/** Few addresses, several reaching one inbox, so doors meet often. */
export const ADDRESSES = [
  "ada@example.com",
  "Ada+news@example.com",
  "someone@gmail.com",
  "some.one@googlemail.com",
  "joan@example.net",
  "ivan@example.com",
] as const;

const DAY = 24 * 60 * 60_000;

/** What the ledger promises, kept beside the real list. */
export interface Model {
  /** Mailboxes that left and have not come back, with the tombstone's reason. */
  left: Map<string, LeftReason>;
  /** Backups made: the file, and the addresses each held. */
  backups: { file: string; addresses: Set<string> }[];
  /** Addresses the owner removed, each since which backup count. */
  removed: Map<string, number>;
  /** Each finished send's status line, as it was when it finished. */
  sends: Map<string, string>;
  /** Confirmation tokens mailed, by address. */
  tokens: Map<string, string>;
  /**
   * Addresses that signed up while mail was off: the product stores them confirmed at once, with no consent record
   * (nothing could be confirmed by mail), as it stores readers from before confirmation existed.
   */
}

/** The real list and what surrounds it: its folder, the backup folder, an outbox, a clock. */
export interface Real {
  dir: string;
  list: SqliteList;
  outbox: Outbox;
  now: number;
  serial: number;
}

/** Memory-backed where the machine has it: the list syncs every commit to its disk, and a run makes thousands. */
const scratch = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

export function newWorld(): { model: Model; real: Real } {
  const dir = mkdtempSync(path.join(scratch, "ledger-model-"));
  return {
    model: {
      left: new Map(),
      backups: [],
      removed: new Map(),
      sends: new Map(),
      tokens: new Map(),
    },
    real: {
      dir,
      list: openSqliteList(path.join(dir, "data")),
      outbox: openOutbox(path.join(dir, "data", "outbox.sqlite")),
      now: Date.UTC(2026, 10, 28, 9),
      serial: 0,
    },
  };
}

export function endWorld(real: Real) {
  real.list.close();
  real.outbox.close();
  rmSync(real.dir, { recursive: true, force: true });
}

const backupDir = (real: Real) => path.join(real.dir, "backups");
const mailbox = (email: string) => mailboxKey(email);
const leave = (model: Model, email: string, reason: LeftReason) =>
  model.left.set(mailbox(email), strongerReason(model.left.get(mailbox(email)) ?? null, reason));
const rowOf = (real: Real, email: string) =>
  real.list.owner.rows().find((row) => row.email.toLowerCase() === email.toLowerCase());

type Cmd = fc.AsyncCommand<Model, Real>;

/** A door, its name (for the shrunk counterexample), and what it does to the list and to the model. */
const door = (name: string, run: (model: Model, real: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (model, real) => {
    await run(model, real);
    await checkInvariants(model, real);
  },
  toString: () => name,
});

const signUp = (email: string) =>
  door(`signUp(${email})`, async (model, real) => {
    const request = { state: "pending" as const, consent: dialogConsent("/"), now: real.now };
    const signedUp = await real.list.signUp(email, request);
    if (!signedUp.mail) return;
    const token = `token-${++real.serial}`;
    if ((await real.list.issueConfirmToken(email, hashToken(token), real.now)) === "issued") {
      model.tokens.set(email.toLowerCase(), token);
    }
  });

/** The dialog while mail is off (no relay configured): the product stores the reader confirmed, without a mail. */
const signUpWithoutMail = (email: string) =>
  door(`signUpWithoutMail(${email})`, async (model, real) => {
    const signedUp = await real.list.signUp(email, withoutMail(real.now));
    if (signedUp.mail) throw new Error("a sign-up while mail is off asked for a mail");
  });

const confirm = (email: string) =>
  door(`confirm(${email})`, async (model, real) => {
    const token = model.tokens.get(email.toLowerCase());
    if (!token) return;
    // The person's own confirmation by mail: the one act that lifts their leaving.
    if ((await real.list.confirm(token, real.now + 1)) === "confirmed") model.left.delete(mailbox(email));
  });

const expire = () =>
  door("expire()", async (model, real) => {
    real.now += 8 * DAY;
    await real.list.expirePending(real.now);
  });

const unsubscribe = (email: string) =>
  door(`unsubscribe(${email})`, async (model, real) => {
    const row = rowOf(real, email);
    if (!row) return;
    if ((await real.list.unsubscribe(row.unsubscribeToken)) === "removed") leave(model, email, "unsubscribed");
  });

const relayVerdict = (email: string, reason: "complained" | "bounced" | "unsubscribed") =>
  door(`${reason}(${email})`, async (model, real) => {
    await real.list.suppress(email, reason, "the relay's words", new Date(real.now));
    leave(model, email, reason);
  });

const softBounces = (email: string) =>
  door(`softBounce×3(${email})`, async (model, real) => {
    let last = "";
    for (let n = 1; n <= 3; n++) last = await real.list.softBounce(email, "452", new Date(real.now + n));
    if (last === "suppressed") leave(model, email, "bounced");
  });

const remove = (email: string) =>
  door(`remove(${email})`, async (model, real) => {
    if (real.list.owner.remove(email)) model.removed.set(email.toLowerCase(), model.backups.length);
    real.outbox.removeRecipient(email);
  });

const imported = (email: string, left: boolean, at: number): ImportedRow => ({
  email,
  createdAt: new Date(at).toISOString(),
  importedAt: new Date(at).toISOString(),
  consentNote: `imported ${new Date(at).toISOString()} from export.csv (Mailchimp); sign-up date not in the file`,
  suppression: left ? { reason: "unsubscribed", at: new Date(at).toISOString(), detail: "said so" } : null,
});

const importRow = (email: string, left: boolean) =>
  door(`import${left ? "Left" : "Subscribed"}(${email})`, async (model, real) => {
    // A reader who signed up here keeps their own word (the precondition read from the list, not the promise): a
    // consent page on the site, or none (a reader from before confirmation, or one who signed up while mail was off).
    const here = real.list.owner
      .rows()
      .some(
        (row) =>
          mailbox(row.email) === mailbox(email) && (real.list.owner.show(row.email)?.page ?? "/").startsWith("/"),
      );
    real.list.owner.addImported(imported(email, left, real.now));
    if (left && !here) leave(model, email, "imported");
  });

const unsuppress = (email: string) =>
  door(`unsuppress(${email})`, async (model, real) => {
    const before = model.left.get(mailbox(email));
    const outcome = await real.list.unsuppress(email);
    if (before && isOwnAct(before) && outcome.kind !== "refused") {
      throw new Error(`unsuppress lifted a reader's own act (${before})`);
    }
    if (outcome.kind === "lifted") model.left.delete(mailbox(email));
  });

const backup = () =>
  door("backup()", async (model, real) => {
    const file = path.join(backupDir(real), `b${++real.serial}.sqlite`);
    mkdirSync(backupDir(real), { recursive: true });
    await real.list.owner.backup(file);
    model.backups.push({ file, addresses: new Set(real.list.owner.rows().map((row) => row.email.toLowerCase())) });
    // Whatever `backups` calls fine, restore takes: a restore of it into a copy of today's list, checked too.
    const [listing] = listBackups(backupDir(real)).filter((entry) => entry.file === file);
    if (typeof listing?.subscribers !== "number") throw new Error(`backups calls ${file} ${JSON.stringify(listing)}`);
  });

const restore = (which: number) =>
  door(`restore(${which})`, async (model, real) => {
    const chosen = model.backups[which % Math.max(1, model.backups.length)];
    if (!chosen) return;
    real.list.close();
    const dataDir = path.join(real.dir, "data");
    await restoreBackup(chosen.file, dataDir, backupDir(real), new Date(real.now + ++real.serial * 1000));
    real.list = openSqliteList(dataDir);
    const index = model.backups.indexOf(chosen);
    // What the owner removed by mistake after this backup comes back, unless its mailbox left since.
    for (const [email, since] of model.removed) {
      if (since <= index || !chosen.addresses.has(email) || model.left.has(mailbox(email))) continue;
      if (!real.list.owner.has(email)) throw new Error(`restore did not bring back ${email}, removed after the backup`);
      model.removed.delete(email);
    }
  });

const send = () =>
  door("send()", async (model, real) => {
    const name = `update-${++real.serial}`;
    const readers = await real.list.readers();
    real.outbox.enqueueMany(
      readers.map((reader) => ({ kind: "update", recipient: reader.email, ref: name })),
      real.now,
    );
    const claimed = real.outbox.claim(
      { kinds: ["update"], limit: 100, owner: "model", leaseMs: 60_000, ref: name },
      real.now,
    );
    for (const row of claimed) real.outbox.recordSent(row.id, "model", "250 ok", real.now);
    model.sends.set(name, sendLine(real, name));
  });

const address = fc.constantFrom(...ADDRESSES);

/** Every door, the common ones weighted over the costly ones (backup and restore each read a file in a child). */
export const commands = [
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
  fc.constant(backup()),
  fc.nat(4).map(restore),
  fc.constant(send()),
];

/** One property over random sequences of doors. */
export const ledgerProperty = (maxCommands: number) =>
  fc.asyncProperty(fc.commands(commands, { maxCommands }), async (sequence) => {
    const { model, real } = newWorld();
    try {
      await fc.asyncModelRun(() => ({ model, real }), sequence);
    } finally {
      endWorld(real);
    }
  });
