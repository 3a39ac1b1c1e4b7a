import { beforeAll, describe, expect, it } from "vitest";
import { handleWebhook, type WebhookInput } from "~/newsletter/webhooks/handler.server";
import { createTokenMemory } from "~/newsletter/webhooks/mailgun.server";
import type { WebhookSettings } from "~/newsletter/webhooks/settings.server";
import type { SnsNetwork } from "~/newsletter/webhooks/sns.server";
import { RELAYS } from "~/newsletter/webhooks/types";
import {
  basicAuth,
  BREVO_AUTH,
  fixture,
  fixtureText,
  MAILGUN_KEY,
  mailgunBody,
  makeSigner,
  POSTMARK_AUTH,
  RESEND_SECRET,
  resendHeaders,
  sesNotification,
  signSns,
  TOPIC_ARN,
  type TestSigner,
} from "../../../support/webhook-signing";

const SETTINGS: WebhookSettings = {
  RESEND_WEBHOOK_SECRET: RESEND_SECRET,
  POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH,
  MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY,
  BREVO_WEBHOOK_AUTH: BREVO_AUTH,
  SES_WEBHOOK_TOPIC_ARN: TOPIC_ARN,
};

let signer: TestSigner;
beforeAll(() => {
  signer = makeSigner();
});
const now = () => new Date(Date.now() + 60_000);
const seconds = () => Math.floor(now().getTime() / 1000);

function snsNetwork(confirm: (url: URL) => Promise<void> = async () => {}) {
  const confirmed: string[] = [];
  const sns: SnsNetwork = {
    fetchCertificate: async () => signer.certificate,
    confirmSubscription: async (url) => {
      confirmed.push(url.href);
      await confirm(url);
    },
  };
  return { sns, confirmed };
}

const handle = (input: Partial<WebhookInput> & Pick<WebhookInput, "relay" | "body">) =>
  handleWebhook({ headers: new Headers(), settings: SETTINGS, now: now(), sns: snsNetwork().sns, ...input });

/** Each relay's signed permanent bounce for gone@example.net, as its request would arrive. */
const signedBounce: Record<string, () => Pick<WebhookInput, "relay" | "body" | "headers">> = {
  resend: () => {
    const body = fixtureText("resend", "bounced");
    return { relay: "resend", body, headers: new Headers(resendHeaders(body, seconds())) };
  },
  postmark: () => ({
    relay: "postmark",
    body: fixtureText("postmark", "hard-bounce"),
    headers: new Headers({ Authorization: basicAuth(POSTMARK_AUTH) }),
  }),
  mailgun: () => ({ relay: "mailgun", body: mailgunBody("permanent-failure", seconds()), headers: new Headers() }),
  brevo: () => ({
    relay: "brevo",
    body: fixtureText("brevo", "hard-bounce"),
    headers: new Headers({ Authorization: basicAuth(BREVO_AUTH) }),
  }),
  ses: () => ({
    relay: "ses",
    body: JSON.stringify(sesNotification("bounce-permanent", signer)),
    headers: new Headers(),
  }),
};

describe("handleWebhook", () => {
  it.each(RELAYS)("%s: a signed permanent bounce is one bounced event for its reader", async (relay) => {
    const answer = await handle(signedBounce[relay]!());
    expect(answer.status).toBe(200);
    expect(answer.status === 200 && answer.events.map((event) => [event.kind, event.email])).toEqual([
      ["bounced", "gone@example.net"],
    ]);
  });

  it.each(RELAYS)("%s: 404 while its variable is unset, whatever the request", async (relay) => {
    const answer = await handle({ ...signedBounce[relay]!(), settings: { ...SETTINGS, ...unset(relay) } });
    expect(answer.status).toBe(404);
  });

  it("404 for a path that names no relay", async () => {
    expect((await handle({ relay: "sendgrid", body: "{}" })).status).toBe(404);
    expect((await handle({ relay: "__proto__", body: "{}" })).status).toBe(404);
  });

  it.each(RELAYS)("%s: 401 for a tampered body, and nothing comes out of it", async (relay) => {
    const request = signedBounce[relay]!();
    const mailgunTokens = createTokenMemory();
    // Mailgun signs its timestamp and token only: the forgery reuses a signature the original request already used.
    if (relay === "mailgun") expect((await handle({ ...request, mailgunTokens })).status).toBe(200);
    const body = request.body.replaceAll("gone@example.net", "victim@example.com");
    // Postmark's and Brevo's credentials do not cover the body: for them the tampering is a request without them.
    const headers = relay === "postmark" || relay === "brevo" ? new Headers() : request.headers;
    const answer = await handle({ ...request, body, headers, mailgunTokens });
    expect(answer).toMatchObject({ status: 401 });
    expect("events" in answer).toBe(false);
  });

  it.each([
    ["resend", () => ({ body: "not json", headers: new Headers(resendHeaders("not json", seconds())) })],
    ["postmark", () => ({ body: "[1,2]", headers: new Headers({ Authorization: basicAuth(POSTMARK_AUTH) }) })],
    ["mailgun", () => ({ body: "<xml/>", headers: new Headers() })],
    ["brevo", () => ({ body: '"text"', headers: new Headers({ Authorization: basicAuth(BREVO_AUTH) }) })],
    ["ses", () => ({ body: '{"Type":"Notification"}', headers: new Headers() })],
  ])("%s: 400 for a body it cannot read", async (relay, request) => {
    expect((await handle({ relay, ...request() })).status).toBe(400);
  });

  it("a delivery, open or click is 200 with nothing in it", async () => {
    const body = fixtureText("resend", "delivered");
    const resend = await handle({ relay: "resend", body, headers: new Headers(resendHeaders(body, seconds())) });
    const auth = new Headers({ Authorization: basicAuth(POSTMARK_AUTH) });
    const postmark = await handle({ relay: "postmark", body: fixtureText("postmark", "open"), headers: auth });
    for (const answer of [resend, postmark]) expect(answer).toMatchObject({ status: 200, events: [] });
  });

  it("the same event delivered twice gives the same event id (what makes the second harmless)", async () => {
    for (const relay of RELAYS) {
      const first = await handle(signedBounce[relay]!());
      const again = await handle(signedBounce[relay]!());
      const ids = [first, again].map((answer) => (answer.status === 200 ? answer.events[0]!.eventId : null));
      expect(ids[0]).not.toBeNull();
      expect(ids[0]).toBe(ids[1]);
    }
  });
});

// Postmark's Subscription Change webhook as its documentation shows it (postmarkapp.com/developer/webhooks/
// subscription-change-webhook): the only report of a spam complaint on a Broadcast stream.
describe("Postmark's Subscription Change", () => {
  const auth = new Headers({ Authorization: basicAuth(POSTMARK_AUTH) });
  const change = (fields: Record<string, unknown>) =>
    handle({
      relay: "postmark",
      headers: auth,
      body: JSON.stringify({ ...fixture("postmark", "subscription-change"), ...fields }),
    });

  it.each([
    ["SpamComplaint", "complained"],
    ["HardBounce", "bounced"],
    ["ManualSuppression", "unsubscribed"],
  ])("SuppressSending with %s suppresses its reader as %s", async (reason, kind) => {
    const answer = await change({ SuppressionReason: reason });
    expect(answer).toMatchObject({ status: 200, events: [{ kind, email: "annoyed@example.org" }] });
    const again = await change({ SuppressionReason: reason });
    expect(again.status === 200 && again.events[0]?.eventId).toBe(answer.status === 200 && answer.events[0]?.eventId);
  });

  it("a reactivation (SuppressSending false) is noted and changes nothing", async () => {
    expect(await change({ SuppressSending: false })).toMatchObject({
      status: 200,
      events: [],
      note: "a reactivation at Postmark, which changes nothing here",
    });
  });

  it("Postmark's test request, with no RecordType, is 200; a body that is no JSON object is 400", async () => {
    expect(await handle({ relay: "postmark", headers: auth, body: "{}" })).toMatchObject({ status: 200, events: [] });
    expect((await handle({ relay: "postmark", headers: auth, body: "[]" })).status).toBe(400);
  });
});

describe("SES notifications and SNS's retry rule (it retries a 5xx, drops a 4xx)", () => {
  it("answers 503 when the signing certificate cannot be fetched now, so SNS retries; 401 to a forged one", async () => {
    const unreachable: SnsNetwork = {
      fetchCertificate: () => Promise.reject(new Error("connect ETIMEDOUT")),
      confirmSubscription: async () => {},
    };
    const bounce = JSON.stringify(sesNotification("bounce-permanent", signer));
    expect(await handle({ relay: "ses", body: bounce, sns: unreachable })).toMatchObject({
      status: 503,
      reason: "certificate could not be had",
    });
    const forger = makeSigner();
    const forged = JSON.stringify(sesNotification("bounce-permanent", forger));
    expect((await handle({ relay: "ses", body: forged })).status).toBe(401);
  });
});

describe("SES subscription confirmation", () => {
  const confirmation = () => signSns(fixture("ses", "sns-subscription-confirmation"), signer);

  it("opens the SubscribeURL of a signed confirmation for the owner's topic", async () => {
    const { sns, confirmed } = snsNetwork();
    const answer = await handle({ relay: "ses", body: JSON.stringify(confirmation()), sns });
    expect(answer).toMatchObject({ status: 200, events: [], note: "subscription to the topic confirmed" });
    expect(confirmed).toEqual([fixture("ses", "sns-subscription-confirmation").SubscribeURL]);
  });

  it("opens nothing for an unsigned one, another topic's, or a link off SNS's host", async () => {
    const { sns, confirmed } = snsNetwork();
    const unsigned = { ...confirmation(), Signature: Buffer.alloc(256).toString("base64") };
    expect((await handle({ relay: "ses", body: JSON.stringify(unsigned), sns })).status).toBe(401);
    const elsewhere = signSns(
      { ...fixture("ses", "sns-subscription-confirmation"), TopicArn: "arn:aws:sns:eu-west-1:999999999999:x" },
      signer,
    );
    expect((await handle({ relay: "ses", body: JSON.stringify(elsewhere), sns })).status).toBe(401);
    const offHost = signSns(
      { ...fixture("ses", "sns-subscription-confirmation"), SubscribeURL: "https://attacker.example/?Action=x" },
      signer,
    );
    expect((await handle({ relay: "ses", body: JSON.stringify(offHost), sns })).status).toBe(400);
    expect(confirmed).toEqual([]);
  });

  it("opens nothing for a link on SNS's host that is not this topic's confirmation with this message's token", async () => {
    const { sns, confirmed } = snsNetwork();
    const base = fixture("ses", "sns-subscription-confirmation");
    const url = new URL(base.SubscribeURL as string);
    const variants = [
      (u: URL) => u.searchParams.set("Action", "Unsubscribe"),
      (u: URL) => u.searchParams.set("TopicArn", "arn:aws:sns:eu-west-1:999999999999:x"),
      (u: URL) => u.searchParams.set("Token", "another-token"),
      (u: URL) => u.searchParams.append("Extra", "1"),
      (u: URL) => (u.pathname = "/elsewhere"),
    ];
    for (const change of variants) {
      const changed = new URL(url);
      change(changed);
      const message = signSns({ ...base, SubscribeURL: changed.href }, signer);
      expect((await handle({ relay: "ses", body: JSON.stringify(message), sns })).status).toBe(400);
    }
    expect(confirmed).toEqual([]);
  });

  it("502 when SNS does not take the confirmation (SNS may send it again)", async () => {
    const { sns } = snsNetwork(() => Promise.reject(new Error("503 from SNS")));
    expect((await handle({ relay: "ses", body: JSON.stringify(confirmation()), sns })).status).toBe(502);
  });
});

function unset(relay: string): WebhookSettings {
  const names: Record<string, keyof WebhookSettings> = {
    resend: "RESEND_WEBHOOK_SECRET",
    postmark: "POSTMARK_WEBHOOK_AUTH",
    mailgun: "MAILGUN_WEBHOOK_SIGNING_KEY",
    brevo: "BREVO_WEBHOOK_AUTH",
    ses: "SES_WEBHOOK_TOPIC_ARN",
  };
  return { [names[relay]!]: undefined };
}
