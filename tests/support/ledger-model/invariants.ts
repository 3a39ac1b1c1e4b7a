// The ledger's promises, checked against the real embedded list after every step of the model (./commands.ts).
import { subscribersCsv } from "~/newsletter/admin/subscribers-csv.server";
import { sendCounts } from "~/newsletter/send/send-command.server";
import { statusLine } from "~/newsletter/send/status-command.server";
import { mailboxKey as mailbox } from "~/newsletter/sign-up/mailbox-key";
import type { Model, Real } from "./world";

export const sendLine = (real: Real, name: string) =>
  statusLine(name, false, sendCounts(real.outbox, name), undefined, false);

/** The ledger's promises, checked against the real list after every step. */
export async function checkInvariants(model: Model, real: Real) {
  const { list } = real;
  const readers = await list.readers();
  for (const reader of readers) {
    if (model.left.has(mailbox(reader.email))) throw new Error(`${reader.email} left and is still mailed`);
    if (!(await list.isReader(reader.token))) throw new Error(`${reader.email} is a reader the per-mail check refuses`);
    const record = list.owner.show(reader.email);
    if (!record?.page) {
      throw new Error(`${reader.email} is a confirmed reader without a consent record`);
    }
  }
  const rows = list.owner.rows();
  const { confirmed, pending } = list.owner.countByState();
  const exported = subscribersCsv(rows, "https://example.com").trimEnd().split("\n").length - 1;
  if (new Set([list.owner.count(), rows.length, confirmed + pending, exported]).size !== 1) {
    throw new Error(`counts disagree: ${list.owner.count()}, ${rows.length}, ${confirmed + pending}, ${exported}`);
  }
  const tombstones = real.list.owner.tombstones();
  if (tombstones.length !== model.left.size) {
    throw new Error(`${tombstones.length} tombstones, where ${model.left.size} mailboxes left`);
  }
  for (const [name, line] of model.sends) {
    const now = sendLine(real, name);
    if (now !== line) throw new Error(`a finished send's record changed: ${line} became ${now}`);
  }
}
