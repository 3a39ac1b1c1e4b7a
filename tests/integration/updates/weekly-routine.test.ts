// The owner's week as docs/weekly.md writes it, against what the owner deploys: the Docker image, replayed without
// Docker (tests/support/docker-image.ts; no engine runs here), with a real relay on loopback. The commands are read
// out of the doc itself, so the doc cannot drift from what works:
//   - step 1's file name is the update the test writes into the checkout before the image is built (step 4);
//   - step 5's fenced block is run line by line, in order. Each line must be `docker exec [-t] portfolio <command>`:
//     `docker exec` runs <command> in the container's WORKDIR with the container's environment, which the replay
//     gives as the runtime stage's directory and ENV plus the settings file's variables (`--env-file`). That wrapper
//     is the only thing mapped; `-t` (a terminal for the progress bar) has no stand-in and changes no outcome. A line
//     in another shape fails the test: teach it the new wrapper rather than skip the line.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { confirmTokenIn, pressConfirm } from "../../support/confirm-link";
import { execForm } from "../../support/dockerfile";
import { inStage, instructions, mappedEnv, runtime, type StageState } from "../../support/docker-image";
import { subscribe } from "../../support/newsletter/http";
import {
  ROOT,
  type ServerProcess,
  TEST_SESSION_SECRET,
  childEnv,
  freePort,
  startServer,
  tempDir,
} from "../../support/production-server";
import { freshVolume, sharedImage } from "../../support/shared-image";
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";
import { WEEKLY_UPDATE as UPDATE, blocksUnder } from "../../support/weekly-doc";

const ROUTINE = blocksUnder("5.")[0] ?? [];
const DOCKER_EXEC = /^docker exec (?:-t )?portfolio (npm run newsletter -- .+)$/;

const READERS = ["first.reader@example.com", "second.reader@example.com"];
const PENDING = "never.confirmed@example.com";
const WELCOME_SUBJECT = /^subject: "(.*)"$/m.exec(
  readFileSync(path.join(ROOT, "docs/examples/welcome.md"), "utf8"),
)?.[1];
const SETTINGS = { MAIL_FROM: "Alex Placeholder <updates@mail.example.net>", SESSION_SECRET: TEST_SESSION_SECRET };

let work: string;
let volume: string;
let app: StageState;
let relay: TestSmtpServer;
let server: ServerProcess | undefined;
let container: Record<string, string>;

/** A routine line run as `docker exec` would: the image's directory, the container's environment. */
function exec(line: string) {
  const command = DOCKER_EXEC.exec(line)?.[1];
  if (!command) throw new Error(`docs/weekly.md step 5: "${line}" is not \`docker exec [-t] portfolio npm run …\``);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd: inStage(app, "."), env: childEnv(container) });
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, ...output }));
  });
}

const mailsTo = (address: string) => relay.mails.filter((mail) => mail.envelopeTo.includes(address));
const ofUpdate = (mail: ReceivedMail) => mail.parsed.subject?.includes("First launch") ?? false;

beforeAll(async () => {
  expect(UPDATE, "docs/weekly.md step 1 names the update's file").toBeTruthy();
  work = tempDir("portfolio-weekly-");
  // 1. Write it (in the checkout), 3. commit it, 4. build the image: the run's image is built from a checkout that
  // holds the update and the owner's welcome mail (tests/support/shared-image.ts).
  const image = await sharedImage();
  app = image.runtimeState;
  volume = freshVolume(image, "portfolio-weekly-volume-");
  relay = await startSmtpServer();
  // `docker run --env-file`: the settings file's mail variables beside the image's ENV; the port kept on loopback.
  container = {
    PATH: process.env.PATH ?? "",
    HOME: work,
    ...mappedEnv(app),
    DATA_DIR: volume,
    ...SETTINGS,
    SMTP_URL: relay.url(),
    HOST: "127.0.0.1",
    PORT: String(await freePort()),
  };
  server = await startServer({
    cwd: inStage(app, "."),
    args: execForm(instructions(runtime, "CMD")[0]!.args)!.slice(1),
    env: container,
  });
  // Readers as they come: sign up on the site, two press Confirm in their mail, one never does.
  for (const email of [...READERS, PENDING]) await subscribe(server.url, email);
  const confirmations = await relay.waitForMails(3, 20_000);
  for (const email of READERS) {
    const mail = confirmations.find((one) => one.envelopeTo.includes(email))!;
    expect((await pressConfirm(server.url, confirmTokenIn(mail.parsed.text ?? "")!)).status).toBe(200);
  }
  await relay.waitForMails(3 + READERS.length, 20_000);
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await relay?.close();
  // The image itself is the run's, removed when the run ends (tests/support/image-run.ts).
  for (const dir of [work, volume]) if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

describe("the image and the owner's welcome", () => {
  it("welcomes each confirmed reader once, and not the one who never confirmed", () => {
    const welcomes = relay.mails.filter((mail) => mail.parsed.subject === WELCOME_SUBJECT);
    expect(welcomes.map((mail) => mail.envelopeTo[0]).sort()).toEqual([...READERS].sort());
  });
});

describe("docs/weekly.md, step 5, run as written against the image", () => {
  it("is the dry run, the test copy, the send and the status, each through docker exec", () => {
    expect(ROUTINE.map((line) => DOCKER_EXEC.exec(line)?.[1]?.split(" -- ")[1])).toEqual([
      `send ${UPDATE} --dry-run`,
      `send ${UPDATE} --test you@example.com`,
      `send ${UPDATE}`,
      "status",
    ]);
  });

  it("sends the update to every confirmed reader exactly once, the test copy to the owner alone", async () => {
    const [dryRun, testCopy, send, status] = ROUTINE;
    const before = relay.mails.length;

    const preview = await exec(dryRun!);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain("f***@example.com");
    expect(preview.stdout).toContain("s***@example.com");
    expect(preview.stdout).not.toContain("n***@example.com");
    expect(relay.mails.length).toBe(before);

    const copy = await exec(testCopy!);
    expect(copy.code, copy.stderr).toBe(0);
    const [test] = await relay.waitForMails(before + 1, 15_000).then((all) => all.slice(before));
    expect(test!.envelopeTo).toEqual(["you@example.com"]);
    expect(test!.parsed.subject).toMatch(/^\[Test\] .*First launch/);

    // The running image serves the update's page, so the send's check that the mail's link opens passes as written.
    expect((await fetch(`${server!.url}/updates/${UPDATE}`)).status).toBe(200);
    const sent = await exec(send!);
    expect(sent.code, `${sent.stdout}\n${sent.stderr}`).toBe(0);
    await relay.waitForMails(before + 1 + READERS.length, 15_000);
    for (const email of READERS) {
      const updates = mailsTo(email).filter(ofUpdate);
      expect(updates, email).toHaveLength(1);
      // Their own unsubscribe link, one click (RFC 8058).
      expect(updates[0]!.raw).toMatch(/^List-Unsubscribe: <[^>]*\/unsubscribe\?token=/im);
    }
    expect(mailsTo(PENDING).filter(ofUpdate)).toEqual([]);

    const report = await exec(status!);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(new RegExp(`${UPDATE}.*sent to ${READERS.length} of ${READERS.length}`));

    // The same send again (a second run, as after a closed terminal) mails nobody twice.
    const again = await exec(send!);
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(0);
    // The relay records a mail before it answers it: whatever the command sent is counted by the time it exits.
    for (const email of READERS) expect(mailsTo(email).filter(ofUpdate), email).toHaveLength(1);
    expect(relay.mails.filter(ofUpdate)).toHaveLength(1 + READERS.length);
  }, 120_000);
});
