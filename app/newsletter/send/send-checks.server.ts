// Before a send queues a single mail: the update's day has begun, the site serves its page (the mail links to it), and
// the relay takes our sender. Each refusal is the owner's to read, so each says when, or which address answered what.
import { CommandError } from "~/newsletter/send/update-to-send.server";
import { notBefore } from "~/updates/publication.server";
import type { Update } from "~/updates/updates.server";
import { type EnvelopeVerdict, probeEnvelope } from "~/mail/envelope-probe.server";
import type { DkimPublished } from "~/mail/dkim-published.server";

/** An update dated in the future goes to no reader before its day (Europe/Brussels), as the site hides it till then. */
export function refuseBeforeItsDay(update: Update, today: string): void {
  const wait = notBefore(update, today);
  if (wait) {
    throw new CommandError(
      `${update.name} is dated ${update.date}: the site shows it from that day on, so it is sent ${wait}. ` +
        "Send yourself a copy now with --test <address>.",
    );
  }
}

/** What one address answered for the update's page: its status, or why there was none. */
export type PageAnswer = { url: string; status: number } | { url: string; error: string };

const TIMEOUT_MS = 5_000;

/** Asks `url` once, following no redirect (a redirect is not the page). */
export async function askPage(url: string): Promise<PageAnswer> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    await response.body?.cancel();
    return { url, status: response.status };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { url, error: error instanceof Error && error.name === "TimeoutError" ? "no answer in 5 s" : cause };
  }
}

const served = (answer: PageAnswer) => "status" in answer && answer.status === 200;
const said = (answer: PageAnswer) => ("status" in answer ? `HTTP ${answer.status}` : answer.error);

/**
 * The mail's "Read it on the site" link must open: the page at the site's address, or failing that at the server on
 * this machine, answers 200. Otherwise the send stops naming each address and its answer, unless the owner says go on.
 */
export async function refuseUnlessServed(
  urls: string[],
  ask: (url: string) => Promise<PageAnswer> = askPage,
): Promise<void> {
  const answers: PageAnswer[] = [];
  for (const url of [...new Set(urls)]) {
    const answer = await ask(url);
    if (served(answer)) return;
    answers.push(answer);
  }
  throw new CommandError(
    [
      "The site does not serve this update yet, so the mail's link would not open:",
      ...answers.map((answer) => `  ${answer.url}: ${said(answer)}`),
      "Deploy it first (docs/weekly.md), or send anyway with --not-served-ok.",
    ].join("\n"),
  );
}

/** The bare address of a From header (`Name <a@b>` or `a@b`). */
const senderAddress = (from: string) => (/<([^<>]*)>\s*$/.exec(from)?.[1] ?? from).trim();

/**
 * The relay takes our sender (an envelope probe: no recipient, no message): a relay that refuses the login or the
 * sender, or turns us away, stops the command before any reader is queued or touched. A relay that cannot be asked
 * now is said, and the send goes on to wait for it as it always has.
 */
export async function refuseUnlessRelayTakesSender(
  smtpUrl: string,
  from: string,
  write: (text: string) => void,
  probe: (url: string, sender: string) => Promise<EnvelopeVerdict> = probeEnvelope,
): Promise<void> {
  const verdict = await probe(smtpUrl, senderAddress(from));
  if (verdict.kind === "refused") {
    throw new CommandError(
      `The relay refuses the sending before any mail (asked with MAIL FROM, nothing sent): ${verdict.reason}\n` +
        "No reader was queued or mailed; fix it and run the same command again.",
      1,
    );
  }
  if (verdict.kind === "unknown") {
    write(`The relay could not be asked before the send (${verdict.reason}): the send waits for it.\n`);
  }
}

/**
 * The DKIM key we sign with is the one published (dkim-published.server.ts): a mismatch stops the command before any
 * reader is queued, naming the record to publish; DNS that cannot be asked is said, and the send goes on.
 */
export async function refuseUnlessDkimPublished(
  check: () => Promise<DkimPublished>,
  write: (text: string) => void,
): Promise<void> {
  const published = await check();
  if (published.kind === "mismatch") {
    throw new CommandError(
      `The DKIM key is not the one published, so receivers would refuse every mail: ${published.reason}\n` +
        "No reader was queued or mailed; publish the record (npm run newsletter -- check) and run the command again.",
      1,
    );
  }
  if (published.kind === "unknown") write(`The DKIM record could not be checked (${published.reason}).\n`);
}
