// The owner's files as a hostile pass leaves them (app/utils/owner-file.server.ts and its readers): a FIFO, a link to
// /dev/zero, a folder, a huge file. Each is refused at once, in one line; none is read, none holds the reader.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dkimKeyFileWarning, dkimProblem } from "~/mail/dkim.server";
import { readWelcomeFile } from "~/newsletter/welcome/welcome-file.server";
import { readOwnerFile } from "~/utils/owner-file.server";
import { tempDir } from "../../support/production-server";

let dir: string;
const at = (name: string) => path.join(dir, name);
beforeEach(() => {
  dir = tempDir("portfolio-owner-file-");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("readOwnerFile", () => {
  it("reads a regular file, and says there is none (null) when it is absent", () => {
    writeFileSync(at("a.txt"), "hello");
    expect(readOwnerFile(at("a.txt"), 100)?.bytes.toString()).toBe("hello");
    expect(readOwnerFile(at("missing.txt"), 100)).toBeNull();
  });

  it("refuses a FIFO at once, with nobody writing to it", () => {
    execFileSync("mkfifo", [at("fifo")]);
    expect(() => readOwnerFile(at("fifo"), 100)).toThrow("is a FIFO, not a regular file");
  });

  it("refuses a link to /dev/zero, a folder, and a file over the bound before reading it", () => {
    symlinkSync("/dev/zero", at("zero"));
    expect(() => readOwnerFile(at("zero"), 100)).toThrow("is a device, not a regular file");
    mkdirSync(at("folder"));
    expect(() => readOwnerFile(at("folder"), 100)).toThrow("is a folder, not a regular file");
    // A sparse 300 MB file: refused from its size, in no time and no memory.
    writeFileSync(at("huge"), "");
    truncateSync(at("huge"), 300 * 1024 * 1024);
    const started = Date.now();
    expect(() => readOwnerFile(at("huge"), 256 * 1024)).toThrow(`is ${300 * 1024 * 1024} bytes, over the 262144`);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("the welcome file and the DKIM key file", () => {
  it("a welcome.md that is a FIFO or /dev/zero: one line naming the file", () => {
    execFileSync("mkfifo", [at("welcome.md")]);
    expect(() => readWelcomeFile(at("welcome.md"))).toThrow(
      "Welcome file welcome.md: file is a FIFO, not a regular file",
    );
    rmSync(at("welcome.md"));
    symlinkSync("/dev/zero", at("welcome.md"));
    expect(() => readWelcomeFile(at("welcome.md"))).toThrow("Welcome file welcome.md: file is a device");
  });

  it("a key file that is /dev/zero, or one the server may not read, is named with the fix", () => {
    symlinkSync("/dev/zero", at("dkim.pem"));
    expect(
      dkimProblem({ DKIM_SELECTOR: "s1", DKIM_PRIVATE_KEY_FILE: at("dkim.pem"), MAIL_FROM: "a@example.com" }),
    ).toEqual({ variable: "DKIM_PRIVATE_KEY_FILE", message: "is a device, not a regular file" });
  });

  it("a key file every user can read is named in a warning; a private one is not", () => {
    const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" });
    writeFileSync(at("dkim.pem"), key);
    chmodSync(at("dkim.pem"), 0o644);
    expect(dkimKeyFileWarning({ DKIM_PRIVATE_KEY_FILE: at("dkim.pem") })).toBe(
      `DKIM_PRIVATE_KEY_FILE ${at("dkim.pem")} can be read by every user of this machine (mode 644): chmod 600 it (owner: the user the server runs as).`,
    );
    chmodSync(at("dkim.pem"), 0o600);
    expect(dkimKeyFileWarning({ DKIM_PRIVATE_KEY_FILE: at("dkim.pem") })).toBeNull();
    expect(dkimKeyFileWarning({})).toBeNull();
  });
});
