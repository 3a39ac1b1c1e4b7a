// The owner's tools (`npm run subscribers`, scripts/subscribers.mjs) as the owner runs them: a child process on the
// last production build, beside a running server or alone.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { postForm } from "../support/newsletter-http";
import { childEnv, productionEnv, ROOT, serverHarness } from "../support/production-server";

const harness = serverHarness("portfolio-cli-");
afterEach(() => harness.cleanup());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run subscribers -- ...args` (the script itself) against DATA_DIR; never throws on a non-zero exit. */
async function subscribers(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "scripts/subscribers.mjs"), ...args],
      { cwd: ROOT, env: childEnv(productionEnv({ DATA_DIR: dataDir, ...env })), timeout: 20_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

const countRows = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("select count(*) as n from newsletter_subscribers").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

const signUp = (url: string, email: string) => postForm(url, new URLSearchParams({ email, website: "" }));

describe("npm run subscribers", () => {
  it("names a damaged database file as the problem, not DATA_DIR", async () => {
    const dataDir = harness.scratchDir();
    writeFileSync(path.join(dataDir, "newsletter.sqlite"), "not a database at all ".repeat(200));
    const run = await subscribers(dataDir, ["count"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("newsletter.sqlite");
    expect(run.stderr).toContain("file is not a database");
    expect(run.stderr).not.toContain("Invalid environment");
  });

  it("backup says how many subscribers the copy holds, while 200 sign-ups go on, and loses none of them", async () => {
    const dataDir = harness.scratchDir();
    const server = await harness.start({ DATA_DIR: dataDir });
    const target = path.join(harness.scratchDir(), "copy.sqlite");
    const emails = Array.from({ length: 200 }, (_, i) => `during-backup-${i}@example.com`);
    const [run, results] = await Promise.all([
      // A moment in, so that the copy is taken while sign-ups are being stored.
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => subscribers(dataDir, ["backup", target])),
      Promise.all(emails.map((email) => signUp(server.url, email))),
    ]);
    expect(run.code).toBe(0);
    expect(results.every((result) => result.status === 303)).toBe(true);
    expect(run.stderr).toContain(`Copied ${countRows(target)} subscribers to ${target}.`);
    expect(countRows(path.join(dataDir, "newsletter.sqlite"))).toBe(200);
  });
});
