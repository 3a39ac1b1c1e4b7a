import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openOutbox } from "~/mail/outbox.server";
import { processRuns } from "~/mail/send-log.server";
import { OUTBOX_FILE_NAME } from "~/mail/settings.server";

/** The lock and the send records live in the outbox's own file. */
const SEND_LOG_FILE_NAME = OUTBOX_FILE_NAME;
const openSendLog = (dataDir: string) => {
  const outbox = openOutbox(path.join(dataDir, SEND_LOG_FILE_NAME));
  return Object.assign(outbox.sends, { close: () => outbox.close() });
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "send-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that ran and has ended. */
function deadPid(): number {
  const pid = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout);
  expect(processRuns(pid)).toBe(false);
  return pid;
}

describe("the send lock", () => {
  it("is held by one sender at a time, whatever the update, and released by its owner only", () => {
    const a = openSendLog(dir);
    const b = openSendLog(dir);
    try {
      expect(a.take("owner-a", "u1", 1000)).toEqual({ kind: "taken", previous: null });
      const busy = b.take("owner-b", "u2", 2000);
      expect(busy).toMatchObject({ kind: "busy", holder: { owner: "owner-a", update: "u1", pid: process.pid } });
      b.release("owner-b", { finished: true });
      expect(b.liveHolder()?.owner).toBe("owner-a");
      a.release("owner-a", { finished: true }, 5000);
      expect(b.liveHolder()).toBeNull();
      expect(b.records()).toEqual([
        { update: "u1", startedAt: 1000, finishedAt: 5000, paused: false, stopped: null, refusalsKept: true },
      ]);
      expect(b.take("owner-b", "u2", 6000).kind).toBe("taken");
      b.release("owner-b", { finished: false, paused: true });
      expect(a.records().find((record) => record.update === "u2")).toMatchObject({ finishedAt: null, paused: true });
      // Sending it again clears the pause.
      a.take("owner-c", "u2", 7000);
      expect(a.records().find((record) => record.update === "u2")).toMatchObject({ startedAt: 6000, paused: false });
    } finally {
      a.close();
      b.close();
    }
  });

  it("is taken over from a process that no longer runs, naming it so its claims can be marked uncertain", () => {
    const log = openSendLog(dir);
    const db = new DatabaseSync(path.join(dir, SEND_LOG_FILE_NAME));
    try {
      const pid = deadPid();
      db.prepare("insert into send_lock values (1, 'dead-owner', ?, ?, 'u1', 1)").run(pid, hostname());
      expect(log.liveHolder()).toBeNull();
      expect(log.take("owner-a", "u1")).toMatchObject({ kind: "taken", previous: { owner: "dead-owner", pid } });
      // Another machine's process cannot be checked: it counts as running.
      db.prepare("update send_lock set owner = 'far', pid = ?, host = 'another-host'").run(pid);
      expect(log.take("owner-b", "u1")).toMatchObject({ kind: "busy", holder: { owner: "far" } });
    } finally {
      db.close();
      log.close();
    }
  });
});
