// `send` before any mail: an update dated in the future waits for its day; an update the site does not serve yet is
// refused, naming each address asked and its answer, unless the owner says --not-served-ok; --dry-run lists the
// recipients masked. The command runs as the owner runs it, on a real relay on loopback.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../support/server-process.mjs";
import { addReaders, newsletter, outboxRows, writeUpdate } from "../../../support/newsletter/cli";
import { sendSetupPerTest } from "../../../support/newsletter/send-setup";

const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("newsletter-send-checks-", { name: NAME, front: { title: "First launch" } });

/** A site on loopback that serves the pages in `paths` (200) and nothing else (404). */
async function site(paths: string[]): Promise<{ url: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? "");
    response.writeHead(paths.includes(request.url ?? "") ? 200 : 404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}
let running: Server | undefined;
afterEach(() => running?.close());

describe("send's checks before any mail", () => {
  it("refuses an update dated in the future, saying from which day, and sends nothing", async () => {
    await addReaders(setup.dataDir, ["one@example.org"]);
    writeUpdate(setup.updatesDir, "2099-01-01-later", { title: "Later" });
    const run = await newsletter(setup.env(), ["send", "2099-01-01-later", "--not-served-ok"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("not before 2099-01-01 (Europe/Brussels)");
    expect(setup.relay.mails).toHaveLength(0);
    expect(outboxRows(setup.dataDir)).toEqual([]);
  });

  it("names a future-dated update's day: status says scheduled, --dry-run says a real send waits for it", async () => {
    await addReaders(setup.dataDir, ["one@example.org"]);
    writeUpdate(setup.updatesDir, "2099-01-01-later", { title: "Later" });
    const status = await newsletter(setup.env(), ["status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain("2099-01-01-later\tscheduled for 2099-01-01 (Europe/Brussels), not sent");
    expect(status.stdout).toContain(`${NAME}\tnot sent`);
    const dry = await newsletter(setup.env(), ["send", "2099-01-01-later", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      "Scheduled for 2099-01-01: a real send is refused until then (not before 2099-01-01 (Europe/Brussels)).",
    );
    const today = await newsletter(setup.env(), ["send", NAME, "--dry-run"]);
    expect(today.stdout).not.toContain("Scheduled");
    expect(setup.relay.mails).toHaveLength(0);
  });

  it("refuses an update the site does not serve, naming each address and its answer; --not-served-ok sends", async () => {
    await addReaders(setup.dataDir, ["one@example.org"]);
    const elsewhere = await site([]);
    running = elsewhere.server;
    const localPort = String(await freePort()); // nothing listens there: the machine's own server is not running
    const env = setup.env({ SITE_URL: elsewhere.url, PORT: localPort });
    const refused = await newsletter(env, ["send", NAME], 60_000, { servedCheck: true });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${elsewhere.url}/updates/${NAME}: HTTP 404`);
    expect(refused.stderr).toContain(`http://127.0.0.1:${localPort}/updates/${NAME}:`);
    expect(refused.stderr).toContain("--not-served-ok");
    expect(setup.relay.mails).toHaveLength(0);
    expect(outboxRows(setup.dataDir)).toEqual([]);

    const anyway = await newsletter(env, ["send", NAME, "--not-served-ok"], 60_000, { servedCheck: true });
    expect(anyway.code).toBe(0);
    expect(anyway.stderr).toContain("1 reader: 1 queued now.");
    expect(setup.relay.mails).toHaveLength(1);
  });

  it("sends when the site serves the page, with the mail's links on SITE_URL", async () => {
    await addReaders(setup.dataDir, ["one@example.org", "two@example.org"]);
    const served = await site([`/updates/${NAME}`]);
    running = served.server;
    const env = setup.env({ SITE_URL: served.url });
    const run = await newsletter(env, ["send", NAME], 60_000, { servedCheck: true });
    expect(run.code).toBe(0);
    expect(served.asked).toEqual([`/updates/${NAME}`]);
    expect(run.stderr).toContain("2 readers: 2 queued now.");
    const text = setup.relay.mails[0]!.parsed.text ?? "";
    expect(text).toContain(`${served.url}/updates/${NAME}`);
    expect(text).toContain(`${served.url}/unsubscribe`);
  });

  it("--dry-run lists the recipients, masked", async () => {
    await addReaders(setup.dataDir, ["alice@example.org"]);
    const run = await newsletter(setup.env(), ["send", NAME, "--dry-run"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Recipients: 1\n");
    expect(run.stdout).toContain("The reader:\n  a***@example.org\n");
    expect(run.stdout).not.toContain("alice@");
  });
});
