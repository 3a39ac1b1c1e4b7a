/**
 * The ledger's model-based test: random sequences of every door (sign-up, a sign-up while mail is off, confirm,
 * expiry, unsubscribe, complaint, bounce, a relay's unsubscribe (Postmark's ManualSuppression), three soft bounces,
 * the owner's remove, import subscribed and left, backup, restore, a restore into a new list after the file was lost,
 * unsuppress, a send)
 * against the real embedded list, beside a small model of what the ledger promises (app/newsletter/list/ledger.ts).
 * After each step `checkInvariants` holds the list to those promises.
 */
import fc from "fast-check";
import { isOwnAct, type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { hashToken, type ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { sendLine } from "./invariants";
import { backup, loseAndRestore, restore } from "./backup-doors";
import { door, endWorld, mailbox, type Model, newWorld, type Real } from "./world";
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

const leave = (model: Model, email: string, reason: LeftReason) =>
  model.left.set(mailbox(email), strongerReason(model.left.get(mailbox(email)) ?? null, reason));
const rowOf = (real: Real, email: string) =>
  real.list.owner.rows().find((row) => row.email.toLowerCase() === email.toLowerCase());

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
  fc.nat(4).map(loseAndRestore),
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
