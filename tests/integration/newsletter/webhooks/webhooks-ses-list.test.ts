// Amazon SES's reports into a real embedded list. Over HTTP the server would fetch SNS's certificate from
// amazonaws.com, which a test cannot sign for; here the one seam is that fetch (the test signer's certificate), and
// everything after it is the production path: verification, parsing, delivery to the list on a real SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { deliverEvents } from "~/newsletter/webhooks/deliver.server";
import { handleWebhook } from "~/newsletter/webhooks/handler.server";
import { createRecentEvents } from "~/newsletter/webhooks/recent-events";
import type { SnsNetwork } from "~/newsletter/webhooks/sns.server";
import { makeSigner, sesNotification, TOPIC_ARN, type TestSigner } from "../../../support/webhook-signing";
import { withoutMail } from "../../../support/newsletter/without-mail";

let signer: TestSigner;
let dir: string;
let list: SqliteList;
beforeAll(() => {
  signer = makeSigner();
});
beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "webhooks-ses-"));
  list = openSqliteList(dir);
  for (const email of ["gone@example.net", "annoyed@example.org", "reader@example.com"])
    await list.signUp(email, withoutMail());
});
afterEach(() => {
  list.close();
  rmSync(dir, { recursive: true, force: true });
});

const sns: SnsNetwork = { fetchCertificate: async () => signer.certificate, confirmSubscription: async () => {} };

async function post(body: string) {
  const answer = await handleWebhook({
    relay: "ses",
    headers: new Headers(),
    body,
    settings: { SES_WEBHOOK_TOPIC_ARN: TOPIC_ARN },
    now: new Date(),
    sns,
  });
  if (answer.status !== 200) return answer.status;
  const delivered = await deliverEvents(answer.events, list, createRecentEvents());
  return delivered.ok ? 200 : 503;
}

const reasons = () => Object.fromEntries(list.owner.rows().map((row) => [row.email, row.suppression?.reason ?? null]));

describe("SES reports into the embedded list", () => {
  it("a signed permanent bounce and a complaint suppress their readers; a tampered one changes nothing", async () => {
    const bounce = JSON.stringify(sesNotification("bounce-permanent", signer));
    const tampered = bounce.replace("gone@example.net", "reader@example.com");
    expect(tampered).not.toBe(bounce);
    expect(await post(tampered)).toBe(401);
    expect(reasons()).toEqual({ "gone@example.net": null, "annoyed@example.org": null, "reader@example.com": null });
    expect(await post(bounce)).toBe(200);
    expect(await post(JSON.stringify(sesNotification("complaint", signer)))).toBe(200);
    expect(reasons()).toEqual({
      "gone@example.net": "bounced",
      "annoyed@example.org": "complained",
      "reader@example.com": null,
    });
    expect((await list.readers()).map((reader) => reader.email)).toEqual(["reader@example.com"]);
  });
});
