// A Vitest reporter for CI: each test file's whole time, its hooks included (Vitest's JSON report counts the tests
// alone, so a file that spends minutes in beforeAll looks quick there), written as JSON to $VITEST_FILE_TIMES.
import { writeFileSync } from "node:fs";
import path from "node:path";

export default class FileTimes {
  onFinished(files = []) {
    const output = process.env.VITEST_FILE_TIMES;
    if (!output) return;
    const times = files.map((file) => ({
      file: path.relative(process.cwd(), file.filepath),
      ms: file.result?.duration ?? 0,
    }));
    writeFileSync(output, JSON.stringify(times));
  }
}
