// The Supabase model's doors of backups (./pglite-commands.ts): a backup by the tool, a restore into the live list, and
// a restore into a new project, where someone has left already, after the old one was lost.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { type LeftReason, strongerReason } from "~/newsletter/list/ledger";
import { mailboxHash } from "~/newsletter/list/mailbox-hash.server";
import { listBackups } from "~/newsletter/backups/backup-folder.server";
import { checkedBackup } from "~/newsletter/backups/restore.server";
import { ownerBackupOver } from "~/newsletter/list/supabase/owner-backup.server";
import { writePagedBackup } from "~/newsletter/list/sqlite/paged-backup-file.server";
import { sendReaders, serviceRoleRpc } from "../pglite-migrations";
import { ADDRESSES } from "./commands";
import { answer, door, mailbox, NEWCOMER, type PgReal } from "./pglite-world";

const owner = (real: PgReal) => ownerBackupOver(serviceRoleRpc(real.db), { pageSize: 3 });

const listed = async (real: PgReal) =>
  new Set(
    (
      await real.db.query<{ email: string }>("select lower(email) as email from public.newsletter_subscribers")
    ).rows.map((row) => row.email),
  );

export const backup = () =>
  door("backup()", async (model, real) => {
    const file = path.join(real.dir, `b${++real.serial}.sqlite`);
    await writePagedBackup(file, owner(real).pages());
    model.backups.push({ file, addresses: await listed(real), left: new Map(model.left) });
    const [listing] = listBackups(real.dir).filter((entry) => entry.file === file);
    if (typeof listing?.subscribers !== "number") throw new Error(`backups calls ${file} ${JSON.stringify(listing)}`);
  });

type Checked = ReturnType<typeof checkedBackup>;

/**
 * The backup's tombstones named through the model's addresses: those of the list's own key, and those of another
 * key (carried), each of these with its latest time.
 */
function tombstonesOf(checked: Checked, liveKey: string) {
  const own = new Set<string>();
  const carried = new Map<string, string>();
  for (const { mailbox: hash, at, key = checked.ledger.key } of checked.ledger.tombstones) {
    const email = [...ADDRESSES, NEWCOMER].find((address) => key && mailboxHash(key, address) === hash);
    if (!email) continue;
    const box = mailbox(email);
    if (key === liveKey) own.add(box);
    else if (!carried.has(box) || carried.get(box)! < at) carried.set(box, at);
  }
  return { own, carried };
}

/** Whether the person of this mailbox confirmed by their own mail's link after `at` (a reader's row says so). */
const confirmedByMailAfter = async (real: PgReal, box: string, at: string) => {
  const email = [...ADDRESSES, NEWCOMER].find((address) => mailbox(address) === box)!;
  const found = await real.db.query<{ a: boolean }>(
    "select exists (select 1 from public.newsletter_subscribers s where s.mailbox = " +
      "newsletter_private.mailbox_hash($1) and s.state = 'confirmed' and s.confirm_token_hash is not null and " +
      "(s.consent_page is null or s.consent_page like '/%') and s.confirmed_at > $2) as a",
    [email, at],
  );
  return found.rows[0]!.a;
};

const liveKeyOf = async (real: PgReal) =>
  (await real.db.query<{ value: string }>("select value from newsletter_private.settings where name = 'ledger_key'"))
    .rows[0]!.value;

export const restore = (which: number) =>
  door(`restore(${which})`, async (model, real) => {
    const chosen = model.backups[which % Math.max(1, model.backups.length)];
    if (!chosen) return;
    const before = await listed(real);
    const checked = checkedBackup(chosen.file);
    const { own, carried } = tombstonesOf(checked, await liveKeyOf(real));
    // Who is a reader now, as the restore's tombstones (written first) find them; and, for a tombstone of another key,
    // who came back by their own confirmation since, the one return the old list's history would have known.
    const mailable = new Set((await sendReaders(real.db)).map(mailbox));
    const back = new Set<string>();
    for (const [box, at] of carried) if (await confirmedByMailAfter(real, box, at)) back.add(box);
    await owner(real).restore(checked);
    // The backup's tombstones come back, never weakened; not over a person who is a reader again since.
    for (const [box, reason] of chosen.left) {
      const lifted = (!own.has(box) || mailable.has(box)) && (!carried.has(box) || back.has(box));
      if (model.left.has(box) || !lifted) model.left.set(box, strongerReason(model.left.get(box) ?? null, reason));
    }
    // Every address of the backup the list lacked comes back (removed by mistake, expired), unless its mailbox left.
    const after = await listed(real);
    for (const email of chosen.addresses) {
      if (before.has(email) || model.left.has(mailbox(email)) || after.has(email)) continue;
      throw new Error(`restore did not bring back ${email}, absent from the list and not gone from it`);
    }
  });

/**
 * The project is lost; a new one (its own ledger key) took a sign-up, whose reader left it, before the owner restored
 * the old project's backup into it: what had left by the backup stays left, carried with its key.
 */
export const loseAndRestore = (which: number) =>
  door(`loseAndRestore(${which})`, async (model, real) => {
    const chosen = model.backups[which % Math.max(1, model.backups.length)];
    if (!chosen) return;
    await real.db.exec(
      "truncate public.newsletter_subscribers, public.newsletter_consent_wordings, newsletter_private.tombstones, " +
        "newsletter_private.carried_tombstones restart identity",
    );
    await real.db.query("update newsletter_private.settings set value = $1 where name = 'ledger_key'", [
      randomBytes(32).toString("hex"),
    ]);
    const token = await real.db.query<{ token: string }>(
      "insert into public.newsletter_subscribers (email) values ($1) returning unsubscribe_token as token",
      [NEWCOMER],
    );
    if ((await answer(real, "anon", "public.unsubscribe_newsletter($1)", [token.rows[0]!.token])) !== true) {
      throw new Error("the new project's reader could not leave");
    }
    model.left = new Map<string, LeftReason>(chosen.left).set(mailbox(NEWCOMER), "unsubscribed");
    model.tokens.clear();
    await owner(real).restore(checkedBackup(chosen.file));
    const after = await listed(real);
    for (const email of chosen.addresses) {
      if (!model.left.has(mailbox(email)) && !after.has(email)) {
        throw new Error(`a restore into a new project did not bring back ${email}`);
      }
    }
  });
