// The relays' webhook endpoints on the production server, its embedded list wired to them: 404 while unset, 401 for a
// bad signature, 400 for a body that is none, 413 past 1 MiB, and a signed bounce or complaint suppressing its
// reader (SES's signature needs its certificate from amazonaws.com: webhooks-ses-http.test.ts serves that host on
// loopback).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteList, SQLITE_FILE_NAME } from "~/newsletter/list/sqlite/sqlite-list.server";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { addReaders } from "../../../support/newsletter/cli";
import { subscribers } from "../../../support/subscribers-cli";
import { serverHarness, type ServerProcess } from "../../../support/production-server";
import {
  basicAuth,
  BREVO_AUTH,
  fixtureText,
  MAILGUN_KEY,
  mailgunBody,
  makeSigner,
  POSTMARK_AUTH,
  RESEND_SECRET,
  resendHeaders,
  sesNotification,
  TOPIC_ARN,
  type TestSigner,
} from "../../../support/webhook-signing";

const RELAYS = ["resend", "postmark", "mailgun", "brevo", "ses"];
const SETTINGS = {
  RESEND_WEBHOOK_SECRET: RESEND_SECRET,
  POSTMARK_WEBHOOK_AUTH: POSTMARK_AUTH,
  MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY,
  BREVO_WEBHOOK_AUTH: BREVO_AUTH,
  SES_WEBHOOK_TOPIC_ARN: TOPIC_ARN,
};

const harness = serverHarness("portfolio-webhooks-");
let configured: ServerProcess;
let bare: ServerProcess;
let attacker: TestSigner;
const dataDir = mkdtempSync(path.join(tmpdir(), "webhooks-list-"));
beforeAll(async () => {
  attacker = makeSigner();
  await addReaders(dataDir, ["gone@example.net", "annoyed@example.org", "reader@example.com"]);
  [configured, bare] = await Promise.all([harness.start({ ...SETTINGS, DATA_DIR: dataDir }), harness.start()]);
});
afterAll(async () => {
  await harness.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

const seconds = () => Math.floor(Date.now() / 1000);
const post = (server: ServerProcess, relay: string, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/webhooks/${relay}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });

describe("while a relay's variable is unset", () => {
  it.each(RELAYS)("/webhooks/%s answers 404 to a post and to a GET", async (relay) => {
    const body = fixtureText("resend", "bounced");
    expect((await post(bare, relay, body, resendHeaders(body, seconds()))).status).toBe(404);
    expect((await fetch(`${bare.url}/webhooks/${relay}`)).status).toBe(404);
  });
});

describe("with every relay configured", () => {
  it("a GET is 405, a relay we do not know 404", async () => {
    const get = await fetch(`${configured.url}/webhooks/resend`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await post(configured, "sendgrid", "{}")).status).toBe(404);
  });

  it.each([
    [
      "resend",
      () => {
        const body = fixtureText("resend", "bounced");
        const other = `whsec_${Buffer.from("an-attacker-guessed-this-key-0123").toString("base64")}`;
        return { body, headers: resendHeaders(body, seconds(), "msg_1", other) };
      },
    ],
    [
      "resend, stale",
      () => {
        const body = fixtureText("resend", "bounced");
        return { body, headers: resendHeaders(body, seconds() - 600) };
      },
    ],
    [
      "postmark",
      () => ({
        body: fixtureText("postmark", "hard-bounce"),
        headers: { Authorization: basicAuth("postmark-hook:guess") },
      }),
    ],
    ["mailgun", () => ({ body: mailgunBody("permanent-failure", seconds(), "not-the-key-0123456789"), headers: {} })],
    ["brevo", () => ({ body: fixtureText("brevo", "hard-bounce"), headers: {} })],
    [
      "ses",
      () => ({
        // Signed, but with a certificate from elsewhere: refused before anything is fetched.
        body: JSON.stringify(
          sesNotification("bounce-permanent", attacker, { SigningCertURL: "https://127.0.0.1/cert.pem" }),
        ),
        headers: {},
      }),
    ],
  ])("%s: a bad or missing signature is 401", async (label, request) => {
    const { body, headers } = request();
    const response = await post(configured, label.split(",")[0]!, body, headers);
    expect(response.status).toBe(401);
  });

  it.each([
    ["mailgun", "not json", {}],
    ["postmark", "[1]", { Authorization: basicAuth(POSTMARK_AUTH) }],
    ["brevo", "{", { Authorization: basicAuth(BREVO_AUTH) }],
    ["ses", '{"Type":"Notification"}', {}],
  ])("%s: a body that is none is 400", async (relay, body, headers) => {
    expect((await post(configured, relay, body, headers)).status).toBe(400);
  });

  it("a body that is not UTF-8 is 400", async () => {
    const body = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect((await post(configured, "postmark", body, { Authorization: basicAuth(POSTMARK_AUTH) })).status).toBe(400);
  });

  it("a body over 1 MiB is 413, declared or streamed", async () => {
    const big = "x".repeat(1024 * 1024 + 1);
    expect((await post(configured, "resend", big)).status).toBe(413);
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent < 1100 * 1024; sent += 16 * 1024) controller.enqueue(new Uint8Array(16 * 1024));
        controller.close();
      },
    });
    const response = await fetch(`${configured.url}/webhooks/brevo`, {
      method: "POST",
      headers: { Authorization: basicAuth(BREVO_AUTH) },
      body: streamed,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    // Exactly 1 MiB is still read (and, being no JSON, refused as such).
    const atLimit = await post(configured, "postmark", " ".repeat(1024 * 1024), {
      Authorization: basicAuth(POSTMARK_AUTH),
    });
    expect(atLimit.status).toBe(400);
  });

  // Brevo batches up to 500 events in one request (its webhook's "batched" option): a full batch of its documented
  // hard_bounce event, about 295 KiB, is taken whole, every event applied.
  it("a full Brevo batch of 500 bounces (about 295 KiB) is taken whole", async () => {
    const one = JSON.parse(fixtureText("brevo", "hard-bounce")) as Record<string, unknown>;
    const batch = Array.from({ length: 500 }, (_, n) => ({
      ...one,
      email: `batch${n}@example.com`,
      id: 30_000 + n,
      "message-id": `<202611270710.${String(10_000_000_000 + n)}@smtp-relay.mailin.fr>`,
      reason: `550 5.1.1 <batch${n}@example.com>: Recipient address rejected: User unknown in virtual mailbox table`,
    }));
    const body = JSON.stringify(batch, null, 2);
    expect(body.length).toBeGreaterThan(256 * 1024);
    const response = await post(configured, "brevo", body, { Authorization: basicAuth(BREVO_AUTH) });
    expect(response.status).toBe(200);
    await configured.waitForOutput("Webhook brevo: 500 bounced unknown");
  });

  it("a verified event with nothing to suppress is 200", async () => {
    const body = fixtureText("resend", "delivered");
    expect((await post(configured, "resend", body, resendHeaders(body, seconds(), "msg_delivered"))).status).toBe(200);
    const open = fixtureText("postmark", "open");
    expect((await post(configured, "postmark", open, { Authorization: basicAuth(POSTMARK_AUTH) })).status).toBe(200);
  });

  // Each relay's documented bounce names gone@example.net, its complaint annoyed@example.org (tests/fixtures/webhooks).
  const signed: Record<
    string,
    (kind: "bounce" | "complaint", tamper?: boolean) => { body: string; headers: Record<string, string> }
  > = {
    resend: (kind, tamper) => {
      const body = fixtureText("resend", kind === "bounce" ? "bounced" : "complained");
      const headers = resendHeaders(body, seconds(), `msg_${kind}_${String(Date.now())}`);
      // Signed, then changed on the way: the signature no longer matches.
      return { body: tamper ? body.replace("example", "exampel") : body, headers };
    },
    postmark: (kind, tamper) => ({
      body: fixtureText("postmark", kind === "bounce" ? "hard-bounce" : "spam-complaint"),
      headers: { Authorization: basicAuth(tamper ? "postmark-hook:c0rrect horse!" : POSTMARK_AUTH) },
    }),
    mailgun: (kind, tamper) => ({
      body: mailgunBody(
        kind === "bounce" ? "permanent-failure" : "complained",
        seconds(),
        tamper ? "f".repeat(32) : MAILGUN_KEY,
      ),
      headers: {},
    }),
    brevo: (kind, tamper) => ({
      body: fixtureText("brevo", kind === "bounce" ? "hard-bounce" : "spam"),
      headers: { Authorization: basicAuth(tamper ? "brevo-hook:battery-stapler" : BREVO_AUTH) },
    }),
  };
  const suppressionOf = (email: string) => {
    const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME), { readOnly: true });
    try {
      return db
        .prepare("select suppressed_reason as reason from newsletter_subscribers where email = ?")
        .get(email) as { reason: string | null };
    } finally {
      db.close();
    }
  };
  const signUpAgainAndConfirm = async (email: string) => {
    const list = openSqliteList(dataDir);
    try {
      const now = Date.now();
      await list.signUp(email, { state: "pending", consent: dialogConsent("/"), now });
      await list.issueConfirmToken(email, hashToken(`again-${email}-${now}`), now);
      expect(await list.confirm(`again-${email}-${now}`, now)).toBe("confirmed");
    } finally {
      list.close();
    }
  };
  const leftByLink = () => {
    const db = new DatabaseSync(path.join(dataDir, SQLITE_FILE_NAME), { readOnly: true });
    try {
      return (db.prepare("select count(*) as n from newsletter_unsubscribed").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it.each(Object.keys(signed))(
    "%s: a signed bounce or complaint suppresses its reader, a tampered one changes nothing",
    async (relay) => {
      for (const kind of ["bounce", "complaint"] as const) {
        const email = kind === "bounce" ? "gone@example.net" : "annoyed@example.org";
        const tampered = signed[relay]!(kind, true);
        expect((await post(configured, relay, tampered.body, tampered.headers)).status).toBe(401);
        expect(suppressionOf(email).reason).toBeNull();
        const { body, headers } = signed[relay]!(kind);
        const response = await post(configured, relay, body, headers);
        expect(response.status).toBe(200);
        expect(suppressionOf(email).reason).toBe(kind === "bounce" ? "bounced" : "complained");
        const shown = await subscribers(dataDir, ["show", email]);
        expect(shown.stdout).toMatch(
          new RegExp(`^suppressed: ${kind === "bounce" ? "bounced" : "complained"} at `, "m"),
        );
        // A complaint is the reader leaving the list: their token is remembered as one who left.
        if (kind === "complaint") expect(leftByLink()).toBeGreaterThan(0);
        const lifted = await subscribers(dataDir, ["unsuppress", email]);
        if (kind === "bounce") expect(lifted.code, lifted.stderr).toBe(0);
        else {
          // The reader's own act: the owner cannot lift it; the reader's own new sign-up, confirmed by mail, does.
          expect(lifted.code).toBe(1);
          expect(lifted.stderr).toContain("only their own new sign-up, confirmed by mail");
          await signUpAgainAndConfirm(email);
        }
        expect(suppressionOf(email).reason).toBeNull();
      }
      expect(suppressionOf("reader@example.com").reason).toBeNull();
    },
  );

  it("the log never holds a secret or an address", async () => {
    const output = configured.output();
    expect(output).not.toContain("provideSuppressionSink");
    expect(output).toContain("Webhook resend: answered 401 (signature does not match)");
    for (const secret of [RESEND_SECRET, RESEND_SECRET.slice(6), "c0rrect horse", "battery-staple", MAILGUN_KEY]) {
      expect(output).not.toContain(secret);
    }
    expect(output).not.toContain("gone@example.net");
  });
});
