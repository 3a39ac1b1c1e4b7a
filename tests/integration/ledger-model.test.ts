// The ledger proven by a model (fast-check's commands and asyncModelRun): random sequences of every door against the
// real embedded list, its backups and an outbox, with a fixed seed. A longer run: node scripts/ledger-model.mjs.
import fc from "fast-check";
import { describe, it } from "vitest";
import { ledgerProperty } from "../support/ledger-model/commands";

const runs = Number(process.env.LEDGER_MODEL_RUNS ?? 200);
const seed = Number(process.env.LEDGER_MODEL_SEED ?? 20261128);

describe("the ledger, against a model", () => {
  it(`keeps its promises over ${runs} random sequences of doors (embedded store)`, async () => {
    await fc.assert(ledgerProperty(Number(process.env.LEDGER_MODEL_COMMANDS ?? 14)), {
      numRuns: runs,
      seed,
      endOnFailure: process.env.LEDGER_MODEL_SHRINK === "0",
    });
    console.info(`ledger model: ${runs} sequences ran (seed ${seed})`);
  }, 600_000);
});
