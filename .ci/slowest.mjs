// The slowest test files of a CI run, from the reporters' JSON files: Vitest's (one per suite) and Playwright's. A
// file's time is what its tests held a worker: Vitest's start-to-end of the file, Playwright's sum of its tests' runs
// (each retry included). Prints nothing for a report that is missing, so a run that failed early still ends cleanly.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const [count = "20", ...reports] = process.argv.slice(2);
const root = process.cwd();
const files = [];

function vitest(report) {
  for (const file of report.testResults ?? []) {
    files.push({ file: path.relative(root, file.name), ms: file.endTime - file.startTime });
  }
}

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
  if ("testResults" in parsed) vitest(parsed);
  else playwright(parsed);
}

files.sort((a, b) => b.ms - a.ms);
if (files.length > 0) console.log(`ci: the ${Math.min(Number(count), files.length)} slowest test files`);
for (const { file, ms } of files.slice(0, Number(count))) {
  console.log(`${(ms / 1000).toFixed(1).padStart(8)} s  ${file}`);
}
