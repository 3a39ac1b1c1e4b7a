// The ledger's table (app/newsletter/list/ledger.ts) agrees with both stores: every door from every starting state,
// run on the embedded list and on the Supabase migrations in PGlite, ends where the table says, with the tombstone
// the table says. The embedded list asks the table itself; the PL/pgSQL functions carry the same rules in SQL, and
// this test is what keeps the two from drifting apart.
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOORS, strongerReason, transition } from "~/newsletter/list/ledger";
import { pathTo, type Seen, STARTS, type TableStore } from "../../../support/ledger-table/cases";
import { embeddedStore } from "../../../support/ledger-table/embedded-store";
import { supabaseStore } from "../../../support/ledger-table/supabase-store";
import { freshSupabaseDatabase, migrate, storeSigningKey } from "../../../support/pglite-migrations";

const SIGNING_KEY = "t".repeat(40);
const CASES = STARTS.flatMap((start) => DOORS.map((door) => ({ start, door })));

/** What the table says a store holds after `door` from `start`. */
function expected(start: (typeof STARTS)[number], door: (typeof DOORS)[number]): Seen {
  const step = transition(start.state, door, start.reason, start.signedUpHere);
  const tombstone =
    step.tombstone === "lift" ? null : step.tombstone ? strongerReason(start.reason, step.tombstone) : start.reason;
  return { state: step.to, tombstone };
}

async function outcomes(store: TableStore) {
  const found: string[] = [];
  for (const { start, door } of CASES) {
    await store.reset();
    for (const step of pathTo(start)) await store.door(step);
    const before = await store.seen();
    expect(before, `${start.name}: the path there`).toEqual({ state: start.state, tombstone: start.reason });
    if (!(await store.door(door))) continue;
    const after = await store.seen();
    const want = expected(start, door);
    if (after.state !== want.state || after.tombstone !== want.tombstone) {
      found.push(`${start.name} + ${door}: table ${JSON.stringify(want)}, store ${JSON.stringify(after)}`);
    }
  }
  return found;
}

describe("the ledger's table, on both stores", () => {
  let db: PGlite;
  const embedded = embeddedStore(existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  beforeAll(async () => {
    db = await freshSupabaseDatabase();
    await migrate(db, ...readdirSync(new URL("../../../../supabase/migrations/", import.meta.url)).sort());
    await storeSigningKey(db, SIGNING_KEY);
  }, 120_000);
  afterAll(async () => {
    embedded.close();
    await db?.close();
  });

  it(`the embedded list ends where the table says (${CASES.length} pairs)`, async () => {
    expect(await outcomes(embedded)).toEqual([]);
  }, 120_000);

  it("Supabase ends where the table says, for every door it has", async () => {
    expect(await outcomes(supabaseStore(db, SIGNING_KEY))).toEqual([]);
  }, 120_000);
});
