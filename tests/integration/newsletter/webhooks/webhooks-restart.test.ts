/**
 * A relay's retry after the server restarted is never counted twice: two Brevo soft bounces for one reader (its
 * documented soft_bounce event, two mails), then the same two delivered again to a restarted server on the same
 * DATA_DIR, leave the reader at two soft bounces, not four (nor three, which would suppress them).
 */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { addReaders } from "../../../support/newsletter/cli";
import { serverHarness } from "../../../support/production-server";
import { basicAuth, BREVO_AUTH, fixtureText } from "../../../support/webhook-signing";

const harness = serverHarness("webhooks-restart-");
afterAll(() => harness.cleanup());

const softBounce = (n: number) => {
  const event = JSON.parse(fixtureText("brevo", "soft-bounce")) as Record<string, unknown>;
  const ts = Number(event.ts_event) + n * 3600;
  return JSON.stringify({
    ...event,
    "message-id": `<mail-${n}@smtp-relay.mailin.fr>`,
    ts_event: ts,
    ts_epoch: ts * 1000,
  });
};

describe("a relay's retry after a restart", () => {
  it("two soft bounces delivered again to a restarted server stay two", async () => {
    const dataDir = harness.scratchDir();
    await addReaders(dataDir, ["full@example.net"]);
    const env = { BREVO_WEBHOOK_AUTH: BREVO_AUTH, DATA_DIR: dataDir };
    const post = (url: string, body: string) =>
      fetch(`${url}/webhooks/brevo`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: basicAuth(BREVO_AUTH) },
        body,
      });
    const state = () => {
      const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME), { readOnly: true });
      try {
        return db
          .prepare("select soft_bounces as n, suppressed_reason as reason from newsletter_subscribers where email = ?")
          .get("full@example.net");
      } finally {
        db.close();
      }
    };

    const first = await harness.start(env);
    for (const n of [1, 2]) expect((await post(first.url, softBounce(n))).status).toBe(200);
    expect(state()).toEqual({ n: 2, reason: null });
    await first.stop();

    const second = await harness.start(env);
    for (const n of [1, 2]) expect((await post(second.url, softBounce(n))).status).toBe(200);
    await second.waitForOutput("1 soft-bounce repeated");
    expect(state()).toEqual({ n: 2, reason: null });
  }, 90_000);
});
