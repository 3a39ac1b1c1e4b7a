// The production server and the owner's files as a hostile pass leaves them: a FIFO as the welcome file (which once
// kept the server from listening), a DKIM key file that is a link to /dev/zero (once read until memory ran out). Each
// stops start-up at once with one line naming the file, never a stack.
import { execFileSync } from "node:child_process";
import { rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerExpectingFailure, tempDir } from "../../support/production-server";

let dir: string;
beforeAll(() => {
  dir = tempDir("portfolio-hostile-files-");
  execFileSync("mkfifo", [path.join(dir, "welcome.md")]);
  symlinkSync("/dev/zero", path.join(dir, "dkim.pem"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAIL = { SMTP_URL: "file:///tmp/portfolio-hostile-captured", MAIL_FROM: "Alex <updates@example.com>" };

describe("start-up with a hostile owner's file", () => {
  it.each([
    [
      "a FIFO as the welcome file",
      { ...MAIL, WELCOME_FILE: "welcome.md" },
      "Welcome file welcome.md: file is a FIFO, not a regular file",
    ],
    [
      "a DKIM key file that is /dev/zero",
      { ...MAIL, DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY_FILE: "dkim.pem" },
      "Invalid environment: DKIM_PRIVATE_KEY_FILE is a device, not a regular file",
    ],
  ])("%s: exits at once with one line, no stack", async (_label, env, line) => {
    const inDir = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [name, name.endsWith("_FILE") ? path.join(dir, value) : value]),
    );
    const started = Date.now();
    const { exit, output } = await startServerExpectingFailure({ env: inDir });
    expect(exit.code).not.toBe(0);
    expect(output("stdout")).not.toContain("listening");
    const lines = output("stderr").trim().split("\n");
    expect(lines).toEqual([line]);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
