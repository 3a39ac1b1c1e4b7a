// The slowest test files of a CI run, from the reports: .ci/file-times.mjs's for Vitest (a file's whole time, hooks
// included) and Playwright's JSON report (a file's tests' runs added up, each retry included). A report that is
// missing is skipped, so a run that failed early still ends cleanly.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const [count = "20", ...reports] = process.argv.slice(2);
const files = [];

function playwright(report) {
  const byFile = new Map();
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) {
          const file = path.join("tests/e2e", spec.file);
          byFile.set(file, (byFile.get(file) ?? 0) + (result.duration ?? 0));
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  for (const [file, ms] of byFile) files.push({ file, ms });
}

for (const report of reports) {
  if (!existsSync(report)) continue;
  const parsed = JSON.parse(readFileSync(report, "utf8"));
  if (Array.isArray(parsed)) files.push(...parsed);
  else playwright(parsed);
}

files.sort((a, b) => b.ms - a.ms);
if (files.length > 0) console.log(`ci: the ${Math.min(Number(count), files.length)} slowest test files`);
for (const { file, ms } of files.slice(0, Number(count))) {
  console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${file}`);
}
