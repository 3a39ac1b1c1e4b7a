// The import's batches: on their own (readers gathered to the batch size, written together, each answer counted), and
// through runImport on a file whose repeats and stronger words come after their address's batch was written.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runImport, type ImportTarget, type ImportWrite } from "~/newsletter/admin/import/run-import.server";
import { ImportBatches, type PendingReader, type WriteAnswer } from "~/newsletter/admin/import/import-batches.server";
import { emptyPlan } from "~/newsletter/admin/import/plan.server";
import type { WriteFailure } from "~/newsletter/admin/import/report.server";

const reader = (line: number, reason: PendingReader["reason"] = null): PendingReader => ({
  line,
  email: `r${line}@example.com`,
  originalDate: null,
  statusInFile: null,
  reason,
});

describe("ImportBatches", () => {
  it("writes a batch once it is full and the rest at the end, counting each answer", async () => {
    const written: number[][] = [];
    const answers: WriteAnswer[] = [true, false, true, new Error("disk full"), true];
    const plan = emptyPlan();
    const failed: WriteFailure[] = [];
    const batches = new ImportBatches(
      (batch) => {
        written.push(batch.map((r) => r.line));
        return batch.map(() => answers.shift()!);
      },
      plan,
      failed,
      2,
    );
    for (const r of [reader(2), reader(3), reader(4, "bounced"), reader(5), reader(6)]) await batches.add(r);
    expect(written).toEqual([
      [2, 3],
      [4, 5],
    ]);
    await batches.flush();
    await batches.flush();
    expect(written).toEqual([[2, 3], [4, 5], [6]]);
    expect(plan.added).toBe(2);
    expect(plan.alreadyOnList).toBe(1);
    expect(plan.suppressed).toEqual({ bounced: 1, complained: 0, unsubscribed: 0 });
    expect(failed).toEqual([{ line: 5, email: "r5@example.com", error: "disk full" }]);
  });

  it("a batch whose write throws fails each of its readers, and an answer missing fails its reader", async () => {
    const plan = emptyPlan();
    const failed: WriteFailure[] = [];
    let call = 0;
    const batches = new ImportBatches(
      async () => {
        call += 1;
        if (call === 1) throw new Error("database is locked");
        return [true];
      },
      plan,
      failed,
      2,
    );
    for (const r of [reader(2), reader(3), reader(4), reader(5)]) await batches.add(r);
    expect(failed.map((f) => [f.line, f.error])).toEqual([
      [2, "database is locked"],
      [3, "database is locked"],
      [5, "the list gave no answer for this reader"],
    ]);
    expect(plan.added).toBe(1);
  });

  it("refuses a batch size below one", () => {
    expect(() => new ImportBatches(() => [], emptyPlan(), [], 0)).toThrow(RangeError);
  });
});

describe("runImport writes a long file a batch at a time", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "import-batches-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Batches of two: a repeat of a, and b's "unsubscribed", both come after the batch holding a and b was written.
  const file = path.join(dir, "batches.csv");
  writeFileSync(
    file,
    [
      "email,status",
      "a@example.com,active",
      "b@example.com,active",
      "c@example.com,active",
      "A@example.com,active",
      "d@example.com,active",
      "b@example.com,unsubscribed",
      "e@example.com,active",
      "",
    ].join("\n"),
  );

  /** A list in memory that keeps each batch as it arrives. */
  function memoryList() {
    const stored = new Map<string, ImportWrite>();
    const batches: string[][] = [];
    const list: ImportTarget = {
      has: (email) => stored.has(email.toLowerCase()),
      write: async (batch) => {
        batches.push(batch.map(({ reader }) => reader.email));
        return batch.map((write) => {
          const key = write.reader.email.toLowerCase();
          if (stored.has(key)) return false;
          stored.set(key, write);
          return true;
        });
      },
    };
    return { list, stored, batches };
  }

  async function run(list: ImportTarget, dryRun = false) {
    let text = "";
    const out = { write: (chunk: string) => (text += chunk) };
    const result = await runImport({ file, dryRun, list, now: new Date(), out, batchRows: 2 });
    return { ...result, text };
  }

  it("writes every reader once, in batches of the size asked, each address at the file's strongest word", async () => {
    const { list, stored, batches } = memoryList();
    const { exitCode, text } = await run(list);
    expect(exitCode).toBe(0);
    expect(batches).toEqual([
      ["a@example.com", "b@example.com"],
      ["c@example.com", "d@example.com"],
      ["e@example.com"],
    ]);
    expect([...stored.values()].map((w) => [w.reader.email, w.suppression, w.consent.statusInFile])).toEqual([
      ["a@example.com", null, 'status "active"'],
      ["b@example.com", "unsubscribed", 'status "unsubscribed"'],
      ["c@example.com", null, 'status "active"'],
      ["d@example.com", null, 'status "active"'],
      ["e@example.com", null, 'status "active"'],
    ]);
    expect(text).toContain(
      "4 readers added as confirmed.\n1 address added suppressed, never to be mailed: 1 unsubscribed.\n",
    );
    expect(text).toContain("  line 5: A@example.com (as line 2)\n  line 7: b@example.com (as line 3)\n");
    // The same file again: every address is there.
    expect((await run(list)).text).toContain("0 readers added as confirmed.\n5 addresses are already on the list");
  });

  it("a dry run says the same of the file and writes no batch", async () => {
    const { list, batches } = memoryList();
    const { text } = await run(list, true);
    expect(batches).toEqual([]);
    expect(text).toContain("4 readers would be added as confirmed.\n1 address would be added suppressed");
  });

  it("a batch the list fails as a whole names each of its rows; the other batches are written", async () => {
    const { list, stored } = memoryList();
    let calls = 0;
    const failing: ImportTarget = {
      has: list.has,
      write: (batch) => {
        calls += 1;
        if (calls === 2) throw new Error("database is locked");
        return list.write(batch);
      },
    };
    const { exitCode, text } = await run(failing);
    expect(exitCode).toBe(1);
    expect(text).toContain(
      "  line 4: c@example.com: database is locked\n  line 6: d@example.com: database is locked\n",
    );
    expect([...stored.keys()]).toEqual(["a@example.com", "b@example.com", "e@example.com"]);
  });
});
