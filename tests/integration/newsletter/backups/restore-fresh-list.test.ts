// A restore after the list's file was lost and the server, restarted, made a new one (a volume lost under a running
// container): the new list holds its own ledger key and whoever signed up since, so the restore adds back. The
// backup's tombstones were made with the old key; they must still keep every mailbox that left from coming back.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { restoreBackup, writeBackup } from "~/newsletter/backups/automatic-backups.server";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { openSqliteList, SQLITE_FILE_NAME, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { withoutMail } from "../../../support/newsletter/without-mail";

let dir: string;
let dataDir: string;
let backupDir: string;
const open: SqliteList[] = [];
const T0 = Date.parse("2026-11-20T10:00:00Z");
const DAY = 24 * 60 * 60_000;

const openList = () => {
  const list = openSqliteList(dataDir);
  open.push(list);
  return list;
};
const closeAll = () => {
  for (const list of open.splice(0)) list.close();
};

const reasonsLeft = (list: SqliteList) =>
  list.owner
    .tombstones()
    .map((tombstone) => tombstone.reason)
    .sort();

const imported = (email: string, left = false) => ({
  email,
  createdAt: new Date(T0).toISOString(),
  importedAt: new Date(T0).toISOString(),
  consentNote: "imported from subscribers.csv (Mailchimp)",
  suppression: left ? { reason: "unsubscribed" as const, at: new Date(T0).toISOString(), detail: "" } : null,
});

/** A list whose readers left in every way, backed up; then the file is lost. Answers the backup's path. */
async function backupThenLoseTheFile() {
  const before = openList();
  for (const email of ["ada@example.com", "bob@example.com", "cy@example.com", "dee@example.com"]) {
    await before.signUp(email, withoutMail(T0));
  }
  const ada = (await before.readers()).find((reader) => reader.email === "ada@example.com")!;
  expect(await before.unsubscribe(ada.token)).toBe("removed");
  expect(await before.suppress("bob@example.com", "bounced", "550 5.1.1 no such user", new Date(T0))).toBe(
    "suppressed",
  );
  expect(await before.suppress("cy@example.com", "complained", "abuse report", new Date(T0))).toBe("suppressed");
  const backup = (await writeBackup(before, { dir: backupDir, keep: 7, timeZone: "Europe/Brussels" })).file;
  closeAll();
  for (const suffix of ["", "-wal", "-shm"])
    rmSync(path.join(dataDir, `${SQLITE_FILE_NAME}${suffix}`), { force: true });
  return backup;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "restore-fresh-"));
  dataDir = path.join(dir, "data");
  backupDir = path.join(dir, "backups");
  vi.spyOn(console, "info").mockImplementation(() => {});
});

afterEach(() => {
  closeAll();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe("a restore into the new list a restarted server made", () => {
  it("keeps every mailbox that left before the backup from any door but the person's own confirmation", async () => {
    const backup = await backupThenLoseTheFile();
    const fresh = openList();
    await fresh.signUp("eve@example.com", withoutMail(T0 + DAY));

    const report = await restoreBackup(backup, dataDir, backupDir, new Date(T0 + 2 * DAY));
    expect(report).toMatchObject({ kind: "added back", alreadyThere: 0 });
    const list = openList();
    expect((await list.readers()).map((reader) => reader.email).sort()).toEqual(["dee@example.com", "eve@example.com"]);

    // Every spelling of a mailbox that left is known as left, and none comes back by an import.
    expect(list.owner.leftOf("Ada+news@Example.com")).toMatchObject({ reason: "unsubscribed" });
    expect(list.owner.leftOf("bob@example.com")).toMatchObject({ reason: "bounced" });
    expect(list.owner.leftOf("cy@example.com")).toMatchObject({ reason: "complained" });
    expect(reasonsLeft(list)).toEqual(["bounced", "complained", "unsubscribed"]);
    expect(list.owner.addImportedBatch([imported("ada@example.com"), imported("cy+x@example.com")])).toEqual([
      false,
      false,
    ]);
    expect((await list.readers()).map((reader) => reader.email).sort()).toEqual(["dee@example.com", "eve@example.com"]);

    // The owner cannot lift a reader's own act; a bounce they can.
    expect(await list.unsuppress("cy@example.com")).toMatchObject({ kind: "refused", reason: "complained" });
    expect(await list.unsuppress("bob@example.com")).toEqual({ kind: "lifted" });
    expect(list.owner.leftOf("bob@example.com")).toBeNull();

    // Ada's own new sign-up is a new one (a mail), and her confirmation brings her back.
    const now = T0 + 3 * DAY;
    expect(await list.signUp("ada@example.com", { state: "pending", consent: dialogConsent("/"), now })).toEqual({
      outcome: "subscribed",
      mail: true,
    });
    expect(await list.issueConfirmToken("ada@example.com", hashToken("ada-again"), now)).toBe("issued");
    expect(await list.confirm("ada-again", now)).toBe("confirmed");
    expect(list.owner.leftOf("ada@example.com")).toBeNull();
    expect(list.owner.tombstones().map((tombstone) => tombstone.reason)).toEqual(["complained"]);
    expect((await list.readers()).map((reader) => reader.email).sort()).toEqual([
      "ada@example.com",
      "bob@example.com",
      "dee@example.com",
      "eve@example.com",
    ]);
  });

  it("a reader who left and came back by their own confirmation in the new list stays a reader", async () => {
    const backup = await backupThenLoseTheFile();
    const fresh = openList();
    // After she left (her link was pressed at the real time), as a confirmation in the new list always is.
    const now = Date.now() + 1_000;
    await fresh.signUp("ada@example.com", { state: "pending", consent: dialogConsent("/"), now });
    await fresh.issueConfirmToken("ada@example.com", hashToken("ada-new"), now);
    expect(await fresh.confirm("ada-new", now)).toBe("confirmed");
    // Cy's address came into the new list by an import, which never outranks her complaint.
    expect(fresh.owner.addImportedBatch([imported("cy@example.com")])).toEqual([true]);

    // Bob's mailbox bounced before the backup; he signs up in the new list and has not confirmed yet.
    await fresh.signUp("bob+new@example.com", { state: "pending", consent: dialogConsent("/"), now });
    await fresh.issueConfirmToken("bob+new@example.com", hashToken("bob-new"), now);

    await restoreBackup(backup, dataDir, backupDir, new Date(T0 + 2 * DAY));
    const list = openList();
    expect(list.owner.leftOf("ada@example.com")).toBeNull();
    expect(list.owner.leftOf("cy@example.com")).toMatchObject({ reason: "complained" });
    expect((await list.readers()).map((reader) => reader.email).sort()).toEqual(["ada@example.com", "dee@example.com"]);
    // His sign-up still waits, and his confirmation lifts the bounce: he asked again himself.
    expect(list.owner.leftOf("bob+new@example.com")).toMatchObject({ reason: "bounced" });
    expect(list.owner.show("bob+new@example.com")).toMatchObject({ state: "pending", suppression: null });
    expect(await list.confirm("bob-new", now + 1)).toBe("confirmed");
    expect(list.owner.leftOf("bob@example.com")).toBeNull();
    expect((await list.readers()).map((reader) => reader.email)).toContain("bob+new@example.com");
  });

  it("a backup of the restored list carries the old tombstones, and restores them into a third list", async () => {
    const first = await backupThenLoseTheFile();
    openList();
    await restoreBackup(first, dataDir, backupDir, new Date(T0 + DAY));
    closeAll();
    const settings = { dir: backupDir, keep: 7, timeZone: "Europe/Brussels" };
    const second = (await writeBackup(openList(), settings, new Date(T0 + 2 * DAY))).file;
    closeAll();
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(path.join(dataDir, `${SQLITE_FILE_NAME}${suffix}`), { force: true });
    openList();
    await restoreBackup(second, dataDir, backupDir, new Date(T0 + 3 * DAY));
    const list = openList();
    expect(reasonsLeft(list)).toEqual(["bounced", "complained", "unsubscribed"]);
    expect(list.owner.addImportedBatch([imported("ada@example.com")])).toEqual([false]);
  });
});
