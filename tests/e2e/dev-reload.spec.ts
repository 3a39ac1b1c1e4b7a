// `npm run dev` as a developer uses it: an edit shows up in the open browser by itself. It runs in a copy of the
// project, so its rebuilds never touch the build the other tests serve.
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, ROOT } from "../support/production-server";
import { expect, test } from "./fixtures";

// Generated or not part of what `npm run dev` reads.
const SKIPPED = new Set([
  "node_modules",
  ".git",
  "build",
  "data",
  "tests",
  "test-results",
  "playwright-report",
  "bench",
]);

test.describe("npm run dev", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the reload is a script");
  // A first build, then a rebuild per edit: more than the usual 30 s on a loaded 2-core machine.
  test.setTimeout(120_000);

  let project: string;
  let dev: ChildProcess | undefined;
  let output = "";

  test.beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), "portfolio-dev-"));
    cpSync(ROOT, project, {
      recursive: true,
      filter: (source) => {
        const relative = path.relative(ROOT, source);
        const top = relative.split(path.sep)[0] ?? "";
        return !SKIPPED.has(top) && relative !== path.join("public", "build");
      },
    });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
  });

  test.afterAll(async () => {
    if (dev && dev.exitCode === null) {
      // npm, remix dev and the app server: the whole process group.
      process.kill(-dev.pid!, "SIGTERM");
      await new Promise((resolve) => dev!.once("close", resolve));
    }
    rmSync(project, { recursive: true, force: true });
  });

  test("shows an edit of the content in the open page without a manual reload", async ({ page }) => {
    const [port, devPort] = [await freePort(), await freePort()];
    dev = spawn("npm", ["run", "dev", "--", "--port", String(devPort)], {
      cwd: project,
      detached: true,
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: path.join(project, "data") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [dev.stdout!, dev.stderr!]) stream.on("data", (chunk: Buffer) => (output += chunk));
    await expect.poll(() => output, { timeout: 90_000 }).toContain("Portfolio listening on");

    await page.goto(`http://127.0.0.1:${port}/`);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    const tagline = "Indie maker shipping small software, one project at a time";
    await expect(page.getByText(tagline)).toBeVisible();
    // The page is the same document until it reloads itself: this marker goes with it.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));

    const content = path.join(project, "app", "content", "site.ts");
    const edited = "Edited while the dev server runs";
    const original = readFileSync(content, "utf8");
    // The compiler's file watcher may still be starting when the server listens: the edit is written again until the
    // compiler says it saw it (at most 10 times, a second apart).
    for (let attempt = 0; attempt < 10 && !output.includes("app/content/site.ts"); attempt += 1) {
      writeFileSync(content, original.replace(tagline, `${edited}${" ".repeat(attempt)}`));
      await expect
        .poll(() => output, { timeout: 1_000 })
        .toContain("app/content/site.ts")
        .catch(() => {});
    }

    // What `npm run dev` printed goes with a failure: the compiler's and the server's side of the story.
    await expect(page.getByText(edited))
      .toBeVisible({ timeout: 60_000 })
      .catch((error: Error) => {
        throw new Error(`${error.message}\n\nnpm run dev printed:\n${output}`);
      });
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    // No warning or error from React or the server on the way (a stack line is the sign of either).
    expect(output, output).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
    expect(output).not.toMatch(/^Warning:/m);
  });
});
