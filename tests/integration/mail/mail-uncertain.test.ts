/**
 * No silent second copy: a relay that has the whole message and never answers it (the connection cut after the final
 * dot, or a stall there) leaves the row uncertain, named, and not sent again unless the owner asks.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Composer, drainDue } from "~/mail/drain.server";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { createMailTransport, type MailTransport } from "~/mail/transport.server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";

const FROM = "Alex Placeholder <updates@example.com>";
let dir: string;
let outbox: Outbox;
let relay: TestSmtpServer;
const transports: MailTransport[] = [];

const transport = (socketTimeoutMs?: number) => {
  const made = createMailTransport({ kind: "smtp", url: relay.url() }, FROM, { socketTimeoutMs });
  transports.push(made);
  return made;
};
const compose: Composer = (row) => ({
  message: { to: row.recipient, subject: `Hello ${row.id}`, text: `Text ${row.id}`, html: `<p>HTML ${row.id}</p>` },
});
const readers = ["first@example.org", "victim@example.org", "last@example.org"];
const copiesOf = (address: string) => relay.mails.filter((mail) => mail.envelopeTo[0] === address).length;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mail-uncertain-"));
  outbox = openOutbox(path.join(dir, "mail-outbox.sqlite"));
  relay = await startSmtpServer();
  for (const recipient of readers) outbox.enqueue({ kind: "confirm", recipient });
});
afterEach(async () => {
  for (const made of transports.splice(0)) made.close();
  outbox.close();
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("an attempt with no answer after the final dot", () => {
  it("a cut after the dot: uncertain, one copy, never retried by later passes", async () => {
    relay.cutAfterData("victim@example.org");
    const options = { outbox, transport: transport(), composers: { confirm: compose } };
    const pass = await drainDue(options);
    expect(pass).toMatchObject({ sent: 2, retried: 0, uncertain: 1, stopped: null });
    const [victim] = outbox.rows({ state: "uncertain" });
    expect(victim?.recipient).toBe("victim@example.org");
    expect(victim?.lastError).toMatch(/^no answer after the whole message was handed over: /);
    // Later passes, even far in the future, find nothing to send: the relay's one copy stays the only one.
    const later = Date.now() + 24 * 3_600_000;
    expect(await drainDue({ ...options, now: () => later })).toMatchObject({ sent: 0, retried: 0, uncertain: 0 });
    expect(copiesOf("victim@example.org")).toBe(1);
    expect(outbox.counts()).toMatchObject({ sent: 2, uncertain: 1, queued: 0, sending: 0 });
    // Only the owner's decision sends it again.
    expect(outbox.requeueUncertain({ recipient: "victim@example.org" })).toBe(1);
    expect(await drainDue(options)).toMatchObject({ sent: 1 });
    expect(copiesOf("victim@example.org")).toBe(2);
  });

  it("a stall after the dot until the socket timeout: uncertain, one copy", async () => {
    relay.stallAfterData("victim@example.org");
    const started = Date.now();
    const pass = await drainDue({ outbox, transport: transport(1_500), composers: { confirm: compose } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(pass).toMatchObject({ sent: 2, retried: 0, uncertain: 1 });
    expect(outbox.rows({ state: "uncertain" }).map((row) => row.recipient)).toEqual(["victim@example.org"]);
    expect(copiesOf("victim@example.org")).toBe(1);
  });

  it("a relay that cannot be reached had nothing handed over: a plain retry, not uncertain", async () => {
    await relay.down();
    const pass = await drainDue({ outbox, transport: transport(), composers: { confirm: compose } });
    expect(pass).toMatchObject({ sent: 0, retried: 3, uncertain: 0 });
  });
});
