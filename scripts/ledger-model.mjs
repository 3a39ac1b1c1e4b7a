// The ledger's model-based test for as long as you like (tests/integration/newsletter/list/ledger-model.test.ts, which npm test runs
// with a fixed seed and 200 sequences per store: the embedded list, and Supabase's migrations in PGlite): a fresh seed
// each run unless one is given, so each run looks somewhere new.
//
//   node scripts/ledger-model.mjs [runs=2000] [seed] [commands per sequence=30]
//
// Prints how many sequences ran and the seed; on a failure, fast-check's shrunk counterexample (the shortest
// sequence of doors that breaks a promise) and the seed and path that replay it.
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";

const [runs = "2000", seed = String(randomInt(2 ** 31 - 1)), commands = "30"] = process.argv.slice(2);
const result = spawnSync("npx", ["vitest", "run", "tests/integration/newsletter/list/ledger-model.test.ts"], {
  env: { ...process.env, LEDGER_MODEL_RUNS: runs, LEDGER_MODEL_SEED: seed, LEDGER_MODEL_COMMANDS: commands },
  encoding: "utf8",
  maxBuffer: 256 * 1024 * 1024,
});
const output = `${result.stdout}\n${result.stderr}`;
const ran = [...output.matchAll(/ledger model: (\d+) sequences ran on (the embedded store|Supabase)/g)];
const failed = /Property failed/.test(output);
if (ran.length === 2 && !failed) {
  const each = ran.map(([, count, store]) => `${count} on ${store}`).join(", ");
  process.stdout.write(`Sequences of up to ${commands} doors ran (seed ${seed}): ${each}; no promise broken.\n`);
  // Every sequence passed, but vitest itself ended badly (on a busy machine its worker can miss a deadline).
  if (result.status !== 0) {
    const errors = output.split("\n").filter((line) => /^Error:/.test(line.trim()));
    process.stdout.write(
      `vitest exited with ${result.status}: ${[...new Set(errors)].join("; ") || "see its output"}\n`,
    );
    process.exitCode = 1;
  }
} else {
  const found = output.split("\n").filter((line) => /Counterexample|Caused by|seed:|Property failed/.test(line));
  process.stdout.write(`The ledger broke a promise (seed ${seed}):\n${[...new Set(found)].join("\n") || output}\n`);
  process.exitCode = 1;
}
