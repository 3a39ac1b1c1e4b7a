// The world a sequence of the ledger's model runs in: the model (what the ledger promises) and the real list beside it.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type fc from "fast-check";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import type { LeftReason } from "~/newsletter/list/ledger";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";
import { checkInvariants } from "./invariants";

/** What the ledger promises, kept beside the real list. */
export interface Model {
  /** Mailboxes that left and have not come back, with the tombstone's reason. */
  left: Map<string, LeftReason>;
  /** Backups made: the file, the addresses each held, and the mailboxes that had left then. */
  backups: { file: string; addresses: Set<string>; left: Map<string, LeftReason> }[];
  /** Addresses the owner removed, each since which backup count. */
  removed: Map<string, number>;
  /** Each finished send's status line, as it was when it finished. */
  sends: Map<string, string>;
  /** Confirmation tokens mailed, by address. */
  tokens: Map<string, string>;
}

/** The real list and what surrounds it: its folder, the backup folder, an outbox, a clock. */
export interface Real {
  dir: string;
  list: SqliteList;
  outbox: Outbox;
  now: number;
  serial: number;
}

/** Memory-backed where the machine has it: the list syncs every commit to its disk, and a run makes thousands. */
const scratch = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

export function newWorld(): { model: Model; real: Real } {
  const dir = mkdtempSync(path.join(scratch, "ledger-model-"));
  return {
    model: {
      left: new Map(),
      backups: [],
      removed: new Map(),
      sends: new Map(),
      tokens: new Map(),
    },
    real: {
      dir,
      list: openSqliteList(path.join(dir, "data")),
      outbox: openOutbox(path.join(dir, "data", "outbox.sqlite")),
      now: Date.UTC(2026, 10, 28, 9),
      serial: 0,
    },
  };
}

export function endWorld(real: Real) {
  real.list.close();
  real.outbox.close();
  rmSync(real.dir, { recursive: true, force: true });
}

export const backupDir = (real: Real) => path.join(real.dir, "backups");
export const mailbox = (email: string) => mailboxKey(email);
export type Cmd = fc.AsyncCommand<Model, Real>;

/** A door, its name (for the shrunk counterexample), and what it does to the list and to the model. */
export const door = (name: string, run: (model: Model, real: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (model, real) => {
    await run(model, real);
    await checkInvariants(model, real);
  },
  toString: () => name,
});
