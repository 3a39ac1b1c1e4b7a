/**
 * No backlog holds the event loop: the production server restarted on an outbox holding 4,000 confirmation mails
 * held back by the hourly cap whose sign-ups expired a day ago (queued 8 days ago) answers `/healthz` within a second
 * all along, the backlog leaves the queue (skipped as expired) without one mail sent, and a new reader's confirmation
 * still goes. Before, the runner skipped such rows one claim at a time, each claim ordering the whole queue, and the
 * process answered nothing for about 22 s. Needs `npm run build`.
 */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXPIRED } from "~/mail/drain.server";
import { openOutbox } from "~/mail/outbox.server";
import { subscribe } from "../../support/newsletter/http";
import { serverHarness } from "../../support/production-server";
import { startSmtpServer, type TestSmtpServer } from "../../support/smtp-server";

const harness = serverHarness("outbox-backlog-");
const BACKLOG = 4_000;
const DAY_MS = 24 * 60 * 60_000;
let relay: TestSmtpServer;

beforeEach(async () => {
  relay = await startSmtpServer();
});
afterEach(async () => {
  await harness.cleanup();
  await relay.close();
});

const outboxFile = (dataDir: string) => path.join(dataDir, "mail-outbox.sqlite");

function statesOf(dataDir: string): Record<string, number> {
  const db = new DatabaseSync(outboxFile(dataDir), { readOnly: true });
  try {
    const rows = db.prepare("select state, count(*) as n from mail_outbox group by state").all() as {
      state: string;
      n: number;
    }[];
    return Object.fromEntries(rows.map((row) => [row.state, row.n]));
  } finally {
    db.close();
  }
}

describe("a backlog of expired confirmation mails", () => {
  it("never keeps the restarted server from answering /healthz within a second", async () => {
    const dataDir = harness.scratchDir();
    const env = {
      DATA_DIR: dataDir,
      SMTP_URL: relay.url(),
      MAIL_FROM: "Alex Placeholder <updates@example.com>",
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
    };
    // The files as the server makes them, then the flood's rows as its sign-ups queued them 8 days ago.
    await (await harness.start(env)).stop();
    const outbox = openOutbox(outboxFile(dataDir));
    const queuedAt = Date.now() - 8 * DAY_MS;
    outbox.enqueueMany(
      Array.from({ length: BACKLOG }, (_, n) => ({
        kind: "confirm" as const,
        recipient: `flood${n}@example.com`,
        payload: { mailbox: `flood${n}@example.com`, visitor: `v${n % 40}`, network: "n1" },
      })),
      queuedAt,
    );
    outbox.close();

    const server = await harness.start(env);
    const latencies: number[] = [];
    const deadline = Date.now() + 60_000;
    // Asked one after another from the moment it listens until the backlog is gone, and a little longer.
    let goneAt: number | null = null;
    while (Date.now() < deadline && (goneAt === null || Date.now() - goneAt < 500)) {
      const started = performance.now();
      const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      expect(response.status).toBe(200);
      if (goneAt === null && (statesOf(dataDir).queued ?? 0) === 0) goneAt = Date.now();
    }
    expect(goneAt, "the backlog left the queue").not.toBeNull();
    const worst = Math.max(...latencies);
    console.info(
      `backlog of ${BACKLOG}: ${latencies.length} /healthz answers, the slowest ${worst.toFixed(1)} ms, ` +
        `the first ones ${latencies
          .slice(0, 8)
          .map((ms) => ms.toFixed(0))
          .join(", ")} ms`,
    );
    expect(worst).toBeLessThan(1_000);
    expect(statesOf(dataDir)).toEqual({ skipped: BACKLOG });
    const db = new DatabaseSync(outboxFile(dataDir), { readOnly: true });
    const reasons = db.prepare("select distinct last_error as reason from mail_outbox").all() as { reason: string }[];
    db.close();
    expect(reasons).toEqual([{ reason: EXPIRED }]);
    expect(relay.mails).toHaveLength(0);

    // The queue is free for a real reader at once.
    await subscribe(server.url, "real.reader@example.org");
    const [mail] = await relay.waitForMails(1, 30_000);
    expect(mail!.envelopeTo).toEqual(["real.reader@example.org"]);
  }, 120_000);
});
