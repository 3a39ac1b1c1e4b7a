/**
 * What a long export costs the owner's machine: the import of 200,000 Substack rows (a dry run through the production
 * build, the command's own code path) measured by the process's peak resident memory, beside the same command on a
 * one-row file (the build alone, before any row), with the Node flags of the command's own npm script. The file is
 * streamed and only each row's address, date and shared status are kept; the command's small young generation keeps
 * the garbage of the rows read from swelling the process.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv, productionEnv, ROOT } from "../../../../support/production-server";

const dir = mkdtempSync(path.join(tmpdir(), "import-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MEASURE = `
import { pathToFileURL } from "node:url";
const [root, file] = process.argv.slice(1);
const build = await import(pathToFileURL(root + "/build/index.js").href);
const result = await build.subscriberAdmin.import(file, { dryRun: true, yes: true }, { write: () => true });
console.log(JSON.stringify({ rows: result.outcome?.rowCount, peakMiB: process.resourceUsage().maxRSS / 1024 }));
`;

/** The Node flags `npm run subscribers` runs with: the bound below holds for the command as the owner runs it. */
function commandFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  return scripts.subscribers!.split(" ").filter((word) => word.startsWith("--"));
}

function substackExport(rows: number): string {
  const lines = ["email,active_subscription,expiry,plan,email_disabled,created_at,first_payment_at"];
  for (let i = 0; i < rows; i += 1) {
    const paid = i % 10 === 0;
    const payment = paid ? "2027-01-01T00:00:00.000Z,monthly" : ",";
    lines.push(
      `reader${i}@example${i % 50}.com,${paid},${payment},${i % 97 === 0},2021-03-04T10:15:00.000Z,` +
        (paid ? "2021-03-04T10:15:00.000Z" : ""),
    );
  }
  return `${lines.join("\n")}\n`;
}

async function peakOf(rows: number): Promise<{ rows: number; peakMiB: number }> {
  const file = path.join(dir, `export-${rows}.csv`);
  writeFileSync(file, substackExport(rows));
  const dataDir = mkdtempSync(path.join(dir, "data-"));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...commandFlags(), "--input-type=module", "-e", MEASURE, ROOT, file],
    {
      cwd: ROOT,
      env: childEnv(productionEnv({ DATA_DIR: dataDir })),
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { rows: number; peakMiB: number };
}

describe("importing a long export", () => {
  it("200,000 rows peak under 250 MiB, the rows' share under 130 MiB", async () => {
    const alone = await peakOf(1);
    const long = await peakOf(200_000);
    expect(long.rows).toBe(200_000);
    const rowsShare = long.peakMiB - alone.peakMiB;
    console.log(
      `import of 200,000 rows: peak ${Math.round(long.peakMiB)} MiB; build alone ${Math.round(alone.peakMiB)} MiB; ` +
        `the rows' share ${Math.round(rowsShare)} MiB`,
    );
    expect(rowsShare).toBeLessThan(130);
    expect(long.peakMiB).toBeLessThan(250);
  }, 180_000);
});
