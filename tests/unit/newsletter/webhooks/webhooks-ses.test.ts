import { beforeAll, describe, expect, it } from "vitest";
import { parseSesNotification } from "~/newsletter/webhooks/ses.server";
import { createSnsNetwork, MAX_CERTIFICATE_FETCHES } from "~/newsletter/webhooks/sns-network.server";
import { parseSnsMessage, signingCertUrl, verifySns, type SnsNetwork } from "~/newsletter/webhooks/sns.server";
import {
  fixture,
  fixtureText,
  makeSigner,
  sesNotification,
  signSns,
  TOPIC_ARN,
  type TestSigner,
} from "../../../support/webhook-signing";

// After the test certificate was made (its validity starts at the second it was made).
const NOW = new Date(Date.now() + 60_000);
let signer: TestSigner;
let other: TestSigner;
beforeAll(() => {
  signer = makeSigner();
  other = makeSigner();
});

/** SNS as the tests have it: the signer's certificate for any URL the verifier asks for, each URL recorded. */
function network(certificate = () => signer.certificate) {
  const fetched: string[] = [];
  const confirmed: string[] = [];
  const sns: SnsNetwork = {
    fetchCertificate: async (url) => (fetched.push(url.href), certificate()),
    confirmSubscription: async (url) => void confirmed.push(url.href),
  };
  return { sns, fetched, confirmed };
}

const verdict = async (message: Record<string, unknown>, sns = network().sns, now = NOW) =>
  verifySns(parseSnsMessage(JSON.stringify(message))!, TOPIC_ARN, sns, now);

describe("SNS message signatures", () => {
  it("takes a notification signed with SignatureVersion 2 (SHA256) and 1 (SHA1)", async () => {
    const { sns, fetched } = network();
    expect(await verdict(sesNotification("bounce-permanent", signer), sns)).toBeNull();
    expect(await verdict(sesNotification("bounce-permanent", signer, { SignatureVersion: "1" }), sns)).toBeNull();
    expect(fetched[0]).toBe(fixture("ses", "sns-notification").SigningCertURL);
  });

  it("takes a subscription confirmation (its own fields are signed)", async () => {
    expect(await verdict(signSns(fixture("ses", "sns-subscription-confirmation"), signer))).toBeNull();
  });

  it("refuses a tampered message, subject, or recipient inside the SES notification", async () => {
    const signed = sesNotification("bounce-permanent", signer);
    const tamperedMessage = { ...signed, Message: (signed.Message as string).replace("gone@", "other@") };
    expect(await verdict(tamperedMessage)).toBe("signature does not match");
    expect(await verdict({ ...signed, Subject: "Something else" })).toBe("signature does not match");
    const later = new Date(Date.parse(signed.Timestamp as string) + 1000).toISOString();
    expect(await verdict({ ...signed, Timestamp: later })).toBe("signature does not match");
  });

  it("refuses a signature by another key, and a SHA1 signature presented as version 2", async () => {
    expect(await verdict(sesNotification("bounce-permanent", other))).toBe("signature does not match");
    const sha1 = sesNotification("bounce-permanent", signer, { SignatureVersion: "1" });
    expect(await verdict({ ...sha1, SignatureVersion: "2" })).toBe("signature does not match");
  });

  it("refuses a message older than SNS's hour of retries, or from the future, without fetching anything", async () => {
    const { sns, fetched } = network();
    const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
    // A genuinely signed notification from 2019: a replay, whatever its signature.
    const old = sesNotification("bounce-permanent", signer, { Timestamp: "2019-06-01T10:00:00.000Z" });
    expect(await verdict(old, sns)).toBe("timestamp not fresh");
    expect(await verdict(sesNotification("bounce-permanent", signer, { Timestamp: hours(-2) }), sns)).toBe(
      "timestamp not fresh",
    );
    expect(await verdict(sesNotification("bounce-permanent", signer, { Timestamp: hours(1) }), sns)).toBe(
      "timestamp not fresh",
    );
    expect(fetched).toEqual([]);
    expect(await verdict(sesNotification("bounce-permanent", signer, { Timestamp: hours(-0.5) }), sns)).toBeNull();
  });

  it("refuses another topic's message without fetching anything", async () => {
    const { sns, fetched } = network();
    const elsewhere = sesNotification("bounce-permanent", signer, {
      TopicArn: "arn:aws:sns:eu-west-1:999999999999:someone-elses",
    });
    expect(await verdict(elsewhere, sns)).toBe("another topic");
    expect(fetched).toEqual([]);
  });

  it.each([
    "http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.eu-west-1.amazonaws.com.attacker.example/SimpleNotificationService-1.pem",
    "https://attacker.example/sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.amazonaws.com/SimpleNotificationService-1.pem",
    "https://s3.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.eu-west-1.amazonaws.com:8443/SimpleNotificationService-1.pem",
    "https://user:pw@sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem?x=1",
    "https://sns.eu-west-1.amazonaws.com/not-a-certificate.txt",
    "not a url",
  ])("refuses a certificate at %s, without fetching it", async (url) => {
    const { sns, fetched } = network();
    expect(await verdict(sesNotification("bounce-permanent", signer, { SigningCertURL: url }), sns)).toBe(
      "certificate not from SNS's host over HTTPS",
    );
    expect(fetched).toEqual([]);
  });

  it("takes SNS's hosts in every region's form", () => {
    for (const region of ["us-east-1", "eu-west-2", "ap-southeast-1", "us-gov-west-1", "me-central-1"]) {
      expect(signingCertUrl(`https://sns.${region}.amazonaws.com/SimpleNotificationService-a1.pem`)).not.toBeNull();
    }
  });

  it("refuses when the certificate cannot be had or read, and when it has expired", async () => {
    expect(await verdict(sesNotification("bounce-permanent", signer), network(() => "not a PEM").sns)).toBe(
      "certificate could not be had",
    );
    const failing: SnsNetwork = {
      fetchCertificate: () => Promise.reject(new Error("offline")),
      confirmSubscription: () => Promise.resolve(),
    };
    expect(await verdict(sesNotification("bounce-permanent", signer), failing)).toBe("certificate could not be had");
    const inTwoYears = new Date(Date.now() + 2 * 365 * 86_400_000);
    const then = sesNotification("bounce-permanent", signer, { Timestamp: inTwoYears.toISOString() });
    expect(await verdict(then, network().sns, inTwoYears)).toBe("certificate expired");
  });

  it.each([
    ["not JSON", "nope"],
    ["another type", JSON.stringify({ ...fixture("ses", "sns-notification"), Type: "Other" })],
    ["no signature version", JSON.stringify({ ...fixture("ses", "sns-notification"), SignatureVersion: "3" })],
    ["a number for a field", JSON.stringify({ ...fixture("ses", "sns-notification"), Message: 5 })],
    [
      "a confirmation without its link",
      JSON.stringify({ ...fixture("ses", "sns-subscription-confirmation"), SubscribeURL: undefined }),
    ],
  ])("reads %s as no SNS message", (_label, body) => {
    expect(parseSnsMessage(body)).toBeNull();
  });
});

describe("SES notifications", () => {
  const kinds = (name: string) => {
    const parsed = parseSesNotification(fixtureText("ses", name), "sns-1", NOW);
    return parsed.ok ? parsed.events.map((event) => [event.kind, event.email]) : parsed.reason;
  };

  it("a Permanent bounce suppresses as bounced, with SES's diagnostic", () => {
    const parsed = parseSesNotification(fixtureText("ses", "bounce-permanent"), "sns-1", NOW);
    expect(parsed.ok && parsed.events).toEqual([
      {
        kind: "bounced",
        email: "gone@example.net",
        detail: "SES Permanent: General: smtp; 550 5.1.1 user unknown",
        eventId: "ses:0102019ac0d5a6b8-2f1d7f0e-9a41-4d7e-b0a8-5e3e8f1c9a10-000000:gone@example.net",
        at: new Date("2026-11-27T07:10:01.000Z"),
      },
    ]);
  });

  it("a Transient bounce (event publishing's eventType) is soft; a complaint is complained; a delivery nothing", () => {
    expect(kinds("bounce-transient")).toEqual([["soft-bounce", "full@example.net"]]);
    expect(kinds("complaint")).toEqual([["complained", "annoyed@example.org"]]);
    expect(kinds("delivery")).toEqual([]);
  });

  it("a 'not-spam' feedback report is no complaint", () => {
    const report = JSON.parse(fixtureText("ses", "complaint"));
    report.complaint.complaintFeedbackType = "not-spam";
    expect(parseSesNotification(JSON.stringify(report), "sns-2", NOW)).toEqual({ ok: true, events: [] });
  });

  it("one event per bounced recipient", () => {
    const report = JSON.parse(fixtureText("ses", "bounce-permanent"));
    report.bounce.bouncedRecipients.push({ emailAddress: "also-gone@example.net" }, { emailAddress: 42 });
    const parsed = parseSesNotification(JSON.stringify(report), "sns-3", NOW);
    expect(parsed.ok && parsed.events.map((event) => event.email)).toEqual([
      "gone@example.net",
      "also-gone@example.net",
    ]);
  });

  it.each(["nope", "[]", '{"notificationType":"Bounce"}'])("refuses %j as unreadable", (message) => {
    expect(parseSesNotification(message, "sns-4", NOW).ok).toBe(false);
  });
});

describe("the production SNS network", () => {
  function recordingFetch(answer: () => Response) {
    const calls: { url: string; init: RequestInit | undefined }[] = [];
    const fetchImpl = (async (url: URL, init?: RequestInit) => {
      calls.push({ url: String(url), init });
      return answer();
    }) as typeof fetch;
    return { calls, fetchImpl };
  }

  it.each([
    "https://attacker.example/SimpleNotificationService-1.pem",
    "http://sns.eu-west-1.amazonaws.com/SimpleNotificationService-1.pem",
    "https://sns.eu-west-1.amazonaws.com.attacker.example/SimpleNotificationService-1.pem",
  ])("refuses to fetch a certificate from %s, sending nothing", async (url) => {
    const { calls, fetchImpl } = recordingFetch(() => new Response("x"));
    await expect(createSnsNetwork(fetchImpl).fetchCertificate(new URL(url))).rejects.toThrow(/refused/);
    expect(calls).toEqual([]);
  });

  it.each([
    "https://attacker.example/?Action=ConfirmSubscription&Token=1",
    "http://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=1",
    "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=x",
  ])("refuses to open the confirmation link %s, sending nothing", async (url) => {
    const { calls, fetchImpl } = recordingFetch(() => new Response("x"));
    await expect(createSnsNetwork(fetchImpl).confirmSubscription(new URL(url))).rejects.toThrow(/refused/);
    expect(calls).toEqual([]);
  });

  it("keeps at most two certificate fetches under way, however many messages ask, and shares one URL's fetch", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const fetchImpl = (async (url: URL) => {
      started.push(String(url));
      await gate;
      return new Response(signer.certificate);
    }) as typeof fetch;
    const net = createSnsNetwork(fetchImpl);
    const cert = (n: number) => new URL(`https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-${n}.pem`);
    const asked = Array.from({ length: 300 }, (_, n) => net.fetchCertificate(cert(n % 3 === 0 ? 0 : n)));
    const settled = Promise.allSettled(asked);
    release();
    const results = await settled;
    expect(started.length).toBe(MAX_CERTIFICATE_FETCHES);
    // Every ask for the first URL shares its one fetch; the rest past the bound are refused (answered 503).
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(100 + 1);
    expect(results.filter((r) => r.status === "rejected")[0]).toMatchObject({
      reason: expect.objectContaining({ message: "too many certificate fetches under way" }),
    });
  });

  it("fetches SNS's certificate without following redirects, once, and refuses what is no certificate", async () => {
    const { calls, fetchImpl } = recordingFetch(() => new Response(signer.certificate));
    const net = createSnsNetwork(fetchImpl);
    const url = new URL("https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-a1.pem");
    expect(await net.fetchCertificate(url)).toBe(signer.certificate);
    expect(await net.fetchCertificate(url)).toBe(signer.certificate);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.init?.redirect).toBe("error");

    const html = createSnsNetwork(recordingFetch(() => new Response("<html>")).fetchImpl);
    await expect(html.fetchCertificate(url)).rejects.toThrow(/not a PEM/);
    const huge = createSnsNetwork(recordingFetch(() => new Response("A".repeat(100_000))).fetchImpl);
    await expect(huge.fetchCertificate(url)).rejects.toThrow(/too large/);
    const missing = createSnsNetwork(recordingFetch(() => new Response("", { status: 404 })).fetchImpl);
    await expect(missing.fetchCertificate(url)).rejects.toThrow(/404/);
  });
});
