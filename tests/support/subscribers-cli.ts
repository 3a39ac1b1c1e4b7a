/** The owner's tools (`npm run subscribers`, scripts/subscribers.mjs) as the owner runs them: a child process. */
import { execFile } from "node:child_process";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { childEnv, productionEnv, ROOT } from "./production-server";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run subscribers -- ...args` (the script itself) against DATA_DIR; never throws on a non-zero exit. */
export async function subscribers(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "scripts/subscribers.mjs"), ...args],
      { cwd: ROOT, env: childEnv(productionEnv({ DATA_DIR: dataDir, ...env })), timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** How many subscribers an embedded store's file (or a backup of it) holds, read without writing to it. */
export function countRows(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("select count(*) as n from newsletter_subscribers").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
