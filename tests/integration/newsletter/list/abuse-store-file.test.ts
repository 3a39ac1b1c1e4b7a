// The database file deleted under a running store: the rows the process still holds are written back, as
// for a deleted -wal, and when that cannot be done the advice is a clean stop, which writes them back itself.
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SQLITE_FILE_NAME, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { storedEmails as storedByServer, subscribe } from "../../../support/newsletter/http";
import { serverHarness } from "../../../support/production-server";
import { storeScratch } from "../../../support/store-scratch";
import { emailsInFile } from "../../../support/newsletter/http";
import { withoutMail } from "../../../support/newsletter/without-mail";

const { scratch, openStore, closeNow } = storeScratch("portfolio-abuse-store-file-");

const file = () => path.join(scratch.dataDir, SQLITE_FILE_NAME);

/** The addresses in the file at the store's name, read by a connection of its own. */
const storedEmails = () => emailsInFile(file());

const logged = (spy: ReturnType<typeof vi.spyOn>) => spy.mock.calls.flat().map(String).join("\n");

async function signUps(store: SqliteList, prefix: string, count: number) {
  const emails = Array.from({ length: count }, (_, i) => `${prefix}-${i}@example.com`);
  for (const email of emails) expect((await store.signUp(email, withoutMail())).outcome).toBe("subscribed");
  return emails;
}

describe("the database file deleted under the running store", () => {
  it("writes every acknowledged row back, keeps taking sign-ups, and advises no restore", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    const before = await signUps(store, "before", 30);
    rmSync(file());
    const after = await signUps(store, "after", 5);
    expect(store.healthy()).toBe(true);
    expect(storedEmails()).toEqual([...before, ...after]);
    expect(logged(errors)).toContain("written back");
    expect(logged(errors)).not.toContain("restore a backup");
  });

  it("writes every row back when its log and the log's index went with it (rm newsletter.sqlite*)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    const before = await signUps(store, "before", 20);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file()}${suffix}`);
    const after = await signUps(store, "after", 3);
    expect(storedEmails()).toEqual([...before, ...after]);
  });

  it("when the rows cannot be written back: refuses sign-ups, advises a clean stop, and the stop writes them", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    const before = await signUps(store, "before", 10);
    // Something in the way of the copy's temporary name: the write-back fails while it is there.
    const blocker = path.join(scratch.dataDir, `.${SQLITE_FILE_NAME}.partial`);
    mkdirSync(path.join(blocker, "inside"), { recursive: true });
    rmSync(file());
    expect((await store.signUp("while-blocked@example.com", withoutMail())).outcome).toBe("failed");
    expect(store.healthy()).toBe(false);
    const advice = logged(errors);
    expect(advice).toContain("stop it cleanly");
    expect(advice).not.toContain("restore a backup)");
    expect(advice).toMatch(/Do not restore a backup/);
    expect(existsSync(file())).toBe(false);

    rmSync(blocker, { recursive: true });
    closeNow(store);
    expect(storedEmails()).toEqual(before);
  });

  it("a file moved away (not deleted) is not written back: the store waits for it, as before", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const store = openStore();
    await signUps(store, "before", 2);
    renameSync(file(), `${file()}.moved`);
    expect((await store.signUp("while-moved@example.com", withoutMail())).outcome).toBe("failed");
    expect(existsSync(file())).toBe(false);
    renameSync(`${file()}.moved`, file());
    expect(store.healthy()).toBe(true);
    expect(logged(errors)).toContain("is gone or was replaced");
  });
});

describe("the database file deleted under the production server", () => {
  const harness = serverHarness("portfolio-abuse-store-file-http-");
  afterEach(() => harness.cleanup());

  it("keeps every acknowledged row through a SIGKILL, with /healthz 200 all along", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const emails = Array.from({ length: 11 }, (_, i) => `deleted-${i}@example.com`);
    expect((await subscribe(server.url, emails[0]!))?.message).toBe("Successfully subscribed!");
    rmSync(path.join(dataDir, SQLITE_FILE_NAME));
    for (const email of emails.slice(1)) {
      expect((await subscribe(server.url, email))?.message).toBe("Successfully subscribed!");
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    server.child.kill("SIGKILL");
    await server.exited;
    expect(storedByServer(dataDir)).toEqual(emails);
    expect(server.output()).toContain("written back");
    expect(server.output()).not.toContain("restore a backup");
  });
});
