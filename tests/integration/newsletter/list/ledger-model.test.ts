// The ledger proven by a model (fast-check's commands and asyncModelRun): random sequences of every door against the
// real embedded list (its backups and an outbox too) and against the real Supabase migrations in PGlite, each beside
// a model of who left, with a fixed seed. A longer run: node scripts/ledger-model.mjs.
import { readdirSync } from "node:fs";
import type { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { ledgerProperty } from "../../../support/ledger-model/commands";
import { SIGNING_KEY, supabaseLedgerProperty } from "../../../support/ledger-model/pglite-commands";
import { freshSupabaseDatabase, migrate, storeSigningKey } from "../../../support/pglite-migrations";

const runs = Number(process.env.LEDGER_MODEL_RUNS ?? 200);
const seed = Number(process.env.LEDGER_MODEL_SEED ?? 20261128);
const commands = Number(process.env.LEDGER_MODEL_COMMANDS ?? 14);
const options = { numRuns: runs, seed, endOnFailure: process.env.LEDGER_MODEL_SHRINK === "0" };

describe("the ledger, against a model", () => {
  it(`keeps its promises over ${runs} random sequences of doors (embedded store)`, async () => {
    await fc.assert(ledgerProperty(commands), options);
    console.info(`ledger model: ${runs} sequences ran on the embedded store (seed ${seed})`);
  }, 600_000);

  describe("Supabase (the migrations in PGlite)", () => {
    let db: PGlite;
    beforeAll(async () => {
      db = await freshSupabaseDatabase();
      const names = readdirSync(new URL("../../../../supabase/migrations/", import.meta.url)).sort();
      await migrate(db, ...names);
      await storeSigningKey(db, SIGNING_KEY);
    }, 120_000);
    afterAll(async () => {
      await db?.close();
    });

    it(`keeps its promises over ${runs} random sequences of doors`, async () => {
      await fc.assert(supabaseLedgerProperty(db, commands), options);
      console.info(`ledger model: ${runs} sequences ran on Supabase (seed ${seed})`);
    }, 600_000);
  });
});
