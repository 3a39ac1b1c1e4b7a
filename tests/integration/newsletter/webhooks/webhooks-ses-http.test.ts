// POST /webhooks/ses over HTTP on the production server, with SNS's host on loopback (tests/support/sns-loopback.ts):
// the server's own SNS code fetches the signing certificate from https://sns.eu-west-1.amazonaws.com through Node's
// proxy settings, checks the signature, confirms a subscription, and suppresses the reader in the embedded list. The
// certificate host check is the production one: a certificate URL anywhere else is refused before anything is fetched.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addReaders } from "../../../support/newsletter/cli";
import { serverHarness, type ServerProcess } from "../../../support/production-server";
import { SNS_HOST, type SnsLoopback, startSnsLoopback, UNAVAILABLE_CERTIFICATE } from "../../../support/sns-loopback";
import { subscribers } from "../../../support/subscribers-cli";
import {
  fixture,
  makeSigner,
  sesNotification,
  signSns,
  TOPIC_ARN,
  type TestSigner,
} from "../../../support/webhook-signing";

const harness = serverHarness("webhooks-ses-http-");
const dataDir = mkdtempSync(path.join(tmpdir(), "webhooks-ses-http-"));
let signer: TestSigner;
let sns: SnsLoopback;
let server: ServerProcess;

beforeAll(async () => {
  signer = makeSigner();
  sns = await startSnsLoopback(signer.certificate);
  await addReaders(dataDir, ["gone@example.net", "annoyed@example.org", "reader@example.com"]);
  server = await harness.start({ ...sns.env, SES_WEBHOOK_TOPIC_ARN: TOPIC_ARN, DATA_DIR: dataDir });
}, 60_000);
afterAll(async () => {
  await harness.cleanup();
  await sns.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (message: Record<string, unknown>) =>
  fetch(`${server.url}/webhooks/ses`, {
    method: "POST",
    // SNS posts its JSON as text/plain.
    headers: { "Content-Type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": String(message.Type) },
    body: JSON.stringify(message),
  });
const suppressionOf = async (email: string) =>
  /^suppressed: (\w+) at /m.exec((await subscribers(dataDir, ["show", email])).stdout)?.[1] ?? null;
const fresh = () => ({ Timestamp: new Date().toISOString(), MessageId: crypto.randomUUID() });

describe("POST /webhooks/ses over HTTP", () => {
  it("fetches the certificate from SNS's host and suppresses a permanent bounce; a tampered one changes nothing", async () => {
    const bounce = sesNotification("bounce-permanent", signer, fresh());
    const tampered = { ...bounce, Message: String(bounce.Message).replace("gone@", "gone2@") };
    expect((await post(tampered)).status).toBe(401);
    expect(await suppressionOf("gone@example.net")).toBeNull();

    expect((await post(bounce)).status).toBe(200);
    expect(await suppressionOf("gone@example.net")).toBe("bounced");
    expect(sns.tunnels).toContain(`${SNS_HOST}:443`);
    expect(sns.requests.some((request) => request.url.endsWith(".pem"))).toBe(true);
    // The same report again (a retry) is harmless.
    expect((await post(bounce)).status).toBe(200);
  });

  it("suppresses a complaint, and leaves a reader no report names alone", async () => {
    expect((await post(sesNotification("complaint", signer, fresh()))).status).toBe(200);
    expect(await suppressionOf("annoyed@example.org")).toBe("complained");
    expect(await suppressionOf("reader@example.com")).toBeNull();
  });

  // SNS retries a 5xx and drops a 4xx (docs.aws.amazon.com, "Amazon SNS message delivery retries").
  it("answers 503 while SNS's certificate cannot be fetched, so SNS retries; 401 to a forged notification", async () => {
    const unavailable = `https://${SNS_HOST}${UNAVAILABLE_CERTIFICATE}`;
    const bounce = sesNotification("bounce-permanent", signer, { ...fresh(), SigningCertURL: unavailable });
    expect((await post(bounce)).status).toBe(503);
    const forged = sesNotification("bounce-permanent", makeSigner(), fresh());
    expect((await post(forged)).status).toBe(401);
    // A notification signed in 2019, however genuine its signature: refused before any certificate is fetched.
    const requestsBefore = sns.requests.length;
    const old = sesNotification("complaint", signer, { ...fresh(), Timestamp: "2019-06-01T10:00:00.000Z" });
    expect((await post(old)).status).toBe(401);
    expect(sns.requests).toHaveLength(requestsBefore);
    // SNS's own next notification is taken (and clears this client's count of refusals).
    expect((await post(sesNotification("complaint", signer, fresh()))).status).toBe(200);
  });

  it("refuses a certificate from anywhere but SNS's host without fetching it", async () => {
    const tunnelsBefore = sns.tunnels.length;
    for (const certificate of [
      "https://127.0.0.1/cert.pem",
      `http://${SNS_HOST}/cert.pem`,
      `https://${SNS_HOST}.attacker.example/cert.pem`,
      `https://${SNS_HOST}:8443/cert.pem`,
    ]) {
      const message = sesNotification("bounce-permanent", signer, { ...fresh(), SigningCertURL: certificate });
      expect((await post(message)).status).toBe(401);
    }
    expect(sns.tunnels).toHaveLength(tunnelsBefore);
  });

  it("confirms a subscription by visiting its SubscribeURL on SNS's host", async () => {
    const confirmation = signSns({ ...fixture("ses", "sns-subscription-confirmation"), ...fresh() }, signer);
    expect((await post(confirmation)).status).toBe(200);
    expect(sns.requests).toContainEqual({
      method: "GET",
      url: expect.stringMatching(/^\/\?Action=ConfirmSubscription&TopicArn=arn:aws:sns:eu-west-1:/),
    });
  });
});
