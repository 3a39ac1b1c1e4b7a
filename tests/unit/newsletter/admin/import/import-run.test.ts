// runImport end to end against a real SQLite file: a small list of its own (an address unique in any letter case,
// a state, a suppression reason, the consent record), adapted to ImportTarget the way the list will be.
import { copyFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES } from "~/newsletter/admin/import/csv-reader.server";
import { runImport, type ImportTarget, type ImportWrite } from "~/newsletter/admin/import/run-import.server";
import { importFixture } from "../../../../support/import-fixture";

let dir: string;
let db: DatabaseSync;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "import-run-"));
  db = new DatabaseSync(path.join(dir, "list.db"));
  db.exec(`
    create table readers (id integer primary key, email text not null, state text not null, reason text,
                          consent text not null);
    create unique index readers_email on readers (lower(email));`);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function sqliteList(): ImportTarget {
  const known = db.prepare("select 1 from readers where lower(email) = lower(?)");
  const insert = db.prepare("insert or ignore into readers (email, state, reason, consent) values (?, ?, ?, ?)");
  const store = ({ reader, suppression, consent }: ImportWrite) => {
    try {
      const state = suppression ? "suppressed" : "confirmed";
      return insert.run(reader.email, state, suppression, JSON.stringify(consent)).changes === 1;
    } catch (error) {
      return error as Error;
    }
  };
  return {
    has: (email) => known.get(email) !== undefined,
    // Asynchronous on purpose: the list may answer either way.
    write: async (batch) => batch.map(store),
  };
}

interface Row {
  email: string;
  state: string;
  reason: string | null;
  consent: string;
}
const dump = () =>
  db.prepare("select email, state, reason, consent from readers order by id").all() as unknown as Row[];
const NOW = new Date("2026-11-27T07:00:00.000Z");

async function run(file: string, options: { dryRun?: boolean; yes?: boolean; list?: ImportTarget } = {}) {
  let text = "";
  const out = { write: (chunk: string) => (text += chunk) };
  const result = await runImport({
    file,
    dryRun: options.dryRun ?? false,
    yes: options.yes ?? false,
    list: options.list ?? sqliteList(),
    now: NOW,
    out,
  });
  return { ...result, text };
}

describe("runImport with a list in a SQLite file", () => {
  // Mailchimp's unsubscribed export: every row is a reader who left, so every row comes in suppressed.
  it("holds back a file that would suppress more than half its rows until --yes, and says so in a dry run", async () => {
    const held = await run(importFixture("mailchimp-unsubscribed.csv"));
    expect(held.exitCode).toBe(3);
    expect(held.text).toContain("2 addresses would be added suppressed");
    expect(held.text).toContain("Careful: 2 of 2 rows would come in suppressed, more than half the file.");
    expect(held.text).toContain("Nothing written. If the file says so, run the same import again with --yes.\n");
    expect(dump()).toEqual([]);

    const dry = await run(importFixture("mailchimp-unsubscribed.csv"), { dryRun: true, yes: true });
    expect(dry.exitCode).toBe(0);
    expect(dry.text).toContain("Careful: 2 of 2 rows would come in suppressed");
    expect(dry.text.endsWith("Dry run: nothing written.\n")).toBe(true);
    expect(dump()).toEqual([]);

    const yes = await run(importFixture("mailchimp-unsubscribed.csv"), { yes: true });
    expect(yes.exitCode).toBe(0);
    expect(yes.text).toContain("Careful: 2 of 2 rows will come in suppressed");
    expect(dump().map((row) => [row.email, row.state])).toEqual([
      ["karen@example.com", "suppressed"],
      ["ivan@example.com", "suppressed"],
    ]);
  });

  it("writes a file that suppresses half its rows or fewer without asking", async () => {
    const { exitCode, text } = await run(importFixture("substack.csv"));
    expect(exitCode).toBe(0);
    expect(text).not.toContain("Careful");
  });

  it("--dry-run prints the plan and writes nothing", async () => {
    const { exitCode, text } = await run(importFixture("substack.csv"), { dryRun: true });
    expect(exitCode).toBe(0);
    expect(text).toContain("4 readers would be added as confirmed.\n");
    expect(text.endsWith("Dry run: nothing written.\n")).toBe(true);
    expect(dump()).toEqual([]);
  });

  it("imports the active, valid, new addresses as confirmed and the others suppressed, each with its record", async () => {
    const { exitCode, text } = await run(importFixture("substack.csv"));
    expect(exitCode).toBe(0);
    expect(text).toContain("4 readers added as confirmed.\n");
    const rows = dump().map((row) => ({ ...row, consent: JSON.parse(row.consent) }));
    // In the file's order.
    expect(rows.map((row) => [row.email, row.state, row.reason])).toEqual([
      ["ada@example.com", "confirmed", null],
      ["grace@example.org", "confirmed", null],
      ["linus@example.com", "suppressed", "unsubscribed"],
      ["margaret@example.com", "confirmed", null],
      ["ken@example.com", "confirmed", null],
    ]);
    expect(rows[0]?.consent).toEqual({
      source: "import",
      file: "substack.csv",
      format: "substack",
      formatName: "Substack",
      importedAt: "2026-11-27T07:00:00.000Z",
      originalDate: "2021-03-04T10:15:00.000Z",
      statusInFile: 'email_disabled "false"',
    });
    expect(rows[4]?.consent.originalDate).toBeNull();
  });

  it("a second import of the same file adds nothing and changes nothing", async () => {
    await run(importFixture("substack.csv"));
    const before = dump();
    const { exitCode, text } = await run(importFixture("substack.csv"));
    expect(exitCode).toBe(0);
    expect(text).toContain("0 readers added as confirmed.\n5 addresses are already on the list, left as is.\n");
    expect(dump()).toEqual(before);
  });

  it("a reader already on the list keeps their own record, and an imported suppression is never revived", async () => {
    db.prepare("insert into readers (email, state, reason, consent) values (?, 'confirmed', null, ?)").run(
      "Ivan@example.com",
      '{"page":"/"}',
    );
    await run(importFixture("mailchimp-unsubscribed.csv"), { yes: true });
    const plain = path.join(dir, "again.txt");
    writeFileSync(plain, "karen@example.com\nivan@example.com\n");
    const { text } = await run(plain);
    expect(text).toContain("0 readers added as confirmed.\n2 addresses are already on the list, left as is.\n");
    expect(dump().map((row) => [row.email, row.state, row.reason, row.consent])).toEqual([
      ["Ivan@example.com", "confirmed", null, '{"page":"/"}'],
      [
        "karen@example.com",
        "suppressed",
        "unsubscribed",
        expect.stringContaining('"file":"mailchimp-unsubscribed.csv"'),
      ],
    ]);
  });

  it("an address that reached the list between the check and the write counts as already there", async () => {
    db.prepare(
      "insert into readers (email, state, reason, consent) values ('zoe@example.com', 'pending', null, '{}')",
    ).run();
    const list = { ...sqliteList(), has: () => false };
    const { exitCode, text } = await run(importFixture("plain.txt"), { list });
    expect(exitCode).toBe(0);
    expect(text).toContain("2 readers added as confirmed.\n1 address is already on the list, left as is.\n");
    expect(dump().find((row) => row.email === "zoe@example.com")?.state).toBe("pending");
  });

  it("a row the list fails to store is named, the others are written, and the command exits 1", async () => {
    db.exec(`create trigger refuse_ken before insert on readers when new.email = 'ken@example.com'
             begin select raise(abort, 'disk I/O error (test)'); end;`);
    const { exitCode, text } = await run(importFixture("substack.csv"));
    expect(exitCode).toBe(1);
    expect(text).toContain("  line 8: ken@example.com: disk I/O error (test)\n");
    expect(dump()).toHaveLength(4);
    db.exec("drop trigger refuse_ken");
    expect((await run(importFixture("substack.csv"))).exitCode).toBe(0);
    expect(dump()).toHaveLength(5);
  });
});

describe("runImport refuses a file as a whole, writing nothing, with exit code 2", () => {
  it.each([
    ["a missing file", () => path.join(dir, "nope.csv"), /^No file at .*nope\.csv\.\nNothing imported\.\n$/],
    [
      "a file over 50 MB (never read into memory)",
      () => {
        const big = path.join(dir, "big.csv");
        writeFileSync(big, "");
        truncateSync(big, MAX_FILE_BYTES + 1);
        return big;
      },
      /big\.csv is larger than 50 MB \(52428801 bytes\), the most the import reads\.\nNothing imported\.\n$/,
    ],
    [
      "a file without an address column",
      () => {
        const other = path.join(dir, "orders.csv");
        writeFileSync(other, "order,total\n1,20\n");
        return other;
      },
      /^.*orders\.csv: No address column: /,
    ],
    [
      "a file with a quote that never closes",
      () => {
        const broken = path.join(dir, "broken.csv");
        copyFileSync(importFixture("kit.csv"), broken);
        writeFileSync(broken, '"Unclosed,unclosed@example.com,active\n', { flag: "a" });
        return broken;
      },
      /^Line 9: a quoted field is never closed\.\nNothing imported\.\n$/,
    ],
  ])("%s", async (_name, make, message) => {
    const { exitCode, text, outcome } = await run(make());
    expect(exitCode).toBe(2);
    expect(outcome).toBeNull();
    expect(text).toMatch(message);
    expect(dump()).toEqual([]);
  });
});
