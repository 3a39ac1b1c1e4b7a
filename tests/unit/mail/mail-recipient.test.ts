import { describe, expect, it } from "vitest";
import { classifySmtpError } from "~/mail/classify.server";
import { GIVE_UP_AFTER_MS, recipientVerdict } from "~/mail/recipient.server";

const smtp = (responseCode: number, command: string, response = `${responseCode} words`) =>
  Object.assign(new Error(response), { responseCode, command, response });
const queuedAt = { createdAt: 1_000_000 };

describe("what a verdict means for its recipient", () => {
  it("suppresses a recipient refused with a 5xx to RCPT or DATA, with the relay's words", () => {
    for (const command of ["RCPT TO", "DATA"]) {
      const { verdict, event } = recipientVerdict(classifySmtpError(smtp(550, command, "550 5.1.1 gone")), queuedAt, 0);
      expect(verdict.kind).toBe("failed");
      expect(event).toEqual({ kind: "refused", reason: "550 5.1.1 gone" });
    }
  });

  it("suppresses nobody for a refusal of the whole sending (login, sender) or a network failure", () => {
    for (const error of [smtp(535, "AUTH PLAIN"), smtp(553, "MAIL FROM"), new Error("ECONNREFUSED")]) {
      expect(recipientVerdict(classifySmtpError(error), queuedAt, queuedAt.createdAt + GIVE_UP_AFTER_MS).event).toBe(
        null,
      );
    }
  });

  it("retries a 4xx for 72 hours, then gives the mail up as a soft bounce", () => {
    const error = classifySmtpError(smtp(452, "RCPT TO", "452 4.2.2 mailbox full"));
    const early = recipientVerdict(error, queuedAt, queuedAt.createdAt + GIVE_UP_AFTER_MS - 1);
    expect(early).toEqual({ verdict: error, event: null });
    const late = recipientVerdict(error, queuedAt, queuedAt.createdAt + GIVE_UP_AFTER_MS);
    expect(late.verdict).toMatchObject({
      kind: "failed",
      reason: "452 4.2.2 mailbox full (gave up after 72 hours)",
      fault: "mailbox",
    });
    expect(late.event).toEqual({ kind: "gave-up", reason: "452 4.2.2 mailbox full" });
  });

  it("never gives a reader up for a relay's own 'not now', however long it lasts", () => {
    for (const words of [
      "451 4.3.0 Mail server temporarily rejected message",
      "454 4.7.0 Temporary authentication failure",
    ]) {
      const error = classifySmtpError(smtp(Number(words.slice(0, 3)), "RCPT TO", words));
      const late = recipientVerdict(error, queuedAt, queuedAt.createdAt + 10 * GIVE_UP_AFTER_MS);
      expect(late).toEqual({ verdict: error, event: null });
    }
  });

  it("suppresses nobody for a refusal the relay's code says is its own", () => {
    const error = classifySmtpError(smtp(550, "RCPT TO", "550 5.4.1 Recipient address rejected: Access denied"));
    expect(recipientVerdict(error, queuedAt, 0)).toEqual({ verdict: error, event: null });
  });
});
