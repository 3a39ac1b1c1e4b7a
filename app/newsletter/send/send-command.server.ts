// `npm run newsletter -- send <name> [--test <address>] [--dry-run] [--resend-uncertain]` (scripts/newsletter.mjs):
// queue one mail per reader in the outbox (once per (update, reader), whatever the number of runs), then send them
// at the relay's pace, reporting as it goes. Every way it ends leaves the outbox exact: a re-run goes on where it was.
import path from "node:path";
import { recipientHook } from "~/newsletter/list/recipient-hook.server";
import { type DrainOptions, drainUntil, newOwner } from "~/mail/drain.server";
import type { Outbox } from "~/mail/outbox.server";
import type { Reader } from "~/newsletter/list/subscriber-list.server";
import {
  createProgressReporter,
  type ProgressOutput,
  type RelayWait,
  type SendSummary,
} from "~/newsletter/send/progress.server";
import { sendTestCopy, previewText } from "~/newsletter/send/send-test.server";
import { CommandError, listToRead, type SendServices, updateToSend } from "~/newsletter/send/update-to-send.server";
import { SKIP_UNSUBSCRIBED, updateComposer, updatePayload } from "~/newsletter/send/update-composer.server";
import type { Env } from "~/utils/env.server";
import {
  refuseBeforeItsDay,
  refuseUnlessDkimPublished,
  refuseUnlessRelayTakesSender,
  refuseUnlessServed,
} from "~/newsletter/send/send-checks.server";
import { DKIM_CHECK_FILE_NAME, dkimPublished } from "~/mail/dkim-published.server";
import { siteUrlOf } from "~/utils/site-url.server";
import { notBefore } from "~/updates/publication.server";
import { challengeToday } from "~/utils/today.server";
import { maskEmail } from "~/utils/mask-email.server";

export { CommandError } from "~/newsletter/send/update-to-send.server";

export interface SendOptions {
  /** The list, the mail settings, the outbox and the transport: the composition root's, as the server's. */
  services: SendServices;
  test?: string;
  dryRun?: boolean;
  resendUncertain?: boolean;
  /** Send even though the site does not serve the update's page yet (`--not-served-ok`). */
  notServedOk?: boolean;
  /** Where progress and the summary go (stderr in the command, so stdout stays for data). */
  output: ProgressOutput;
  signal?: AbortSignal;
}

/** Far longer than one attempt can take (the transport bounds connection, greeting and socket waits). */
export const LEASE_MS = 5 * 60_000;

/**
 * Parallel relay connections: enough for hundreds of mails a second unpaced; paced, one per 5 mails/s, so each has
 * 200 ms for a claim (one fsync, slow on a busy disk) and the relay's answer. Also the most mails that can be
 * uncertain if the sender dies.
 */
export const concurrencyFor = (ratePerSecond: number): number =>
  ratePerSecond === 0 ? 8 : Math.min(8, Math.max(1, Math.ceil(ratePerSecond / 5)));

/**
 * After its first round (every reader tried once), how soon a retry must be due for the command to stay for it: a
 * relay back within seconds, a throttle's short wait. Later retries are left to the web server or the next run, so one
 * reader's full mailbox never keeps the command, or the send lock, for ever.
 * MAIL_RETRY_HOLD_SECONDS (15 s unless a test shortens it).
 */
const retryHoldMs = (settings: Env): number => settings.MAIL_RETRY_HOLD_SECONDS * 1000;

/** Whether some reader of the update has not been tried yet, or a mail of it is in flight (the first round). */
const firstRoundOpen = (outbox: Outbox, name: string) =>
  outbox
    .rows({ kind: "update", ref: name })
    .some((row) => row.state === "sending" || (row.state === "queued" && row.attempts === 0));

/** When the update's next retry is due, if one waits. */
const nextRetryOf = (outbox: Outbox, name: string): number | null =>
  outbox
    .rows({ kind: "update", ref: name, state: "queued" })
    .reduce<number | null>((min, row) => (min === null || row.nextAttemptAt < min ? row.nextAttemptAt : min), null);

const SMTP_ANSWER = /^[45]\d\d[ -]/;

/** What the update's send waits for: the latest relay answer of a reader waiting for a retry, and the next try. */
export function relayWait(outbox: Outbox, name: string, now = Date.now()): RelayWait | null {
  // A wait is current only while it lasts: a row already due would show "next try in 0 s". A connection's failure
  // (no SMTP answer) is also over once the relay takes a mail again; a relay's answer about this reader (a full
  // mailbox's 452) is not, whatever the relay did for the others since.
  const lastSent = Math.max(
    0,
    ...outbox.rows({ kind: "update", ref: name, state: "sent" }).map((row) => row.sentAt ?? 0),
  );
  const waiting = outbox
    .rows({ kind: "update", ref: name, state: "queued" })
    .filter((row) => row.attempts > 0 && row.lastError && row.nextAttemptAt > now)
    .filter((row) => SMTP_ANSWER.test(row.lastError ?? "") || row.updatedAt > lastSent);
  if (waiting.length === 0) return null;
  const latest = waiting.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));
  const nextAt = Math.min(...waiting.map((row) => row.nextAttemptAt));
  return { reason: latest.lastError ?? "", email: latest.recipient, count: waiting.length, nextAt };
}

/** The update's rows as the progress reporter counts them. */
export function sendCounts(outbox: Outbox, name: string) {
  const c = outbox.counts({ kind: "update", ref: name });
  const total = c.queued + c.sending + c.sent + c.failed + c.skipped + c.uncertain;
  return { total, ...c, wait: c.queued > 0 ? relayWait(outbox, name) : null };
}

/** What happened to every reader of the update, from the outbox (the truth, whoever sent the mails). */
export function summaryOf(outbox: Outbox, name: string): SendSummary {
  const rows = outbox.rows({ kind: "update", ref: name });
  const counts = sendCounts(outbox, name);
  return {
    update: name,
    ...counts,
    failures: rows
      .filter((row) => row.state === "failed")
      .map((row) => ({ email: row.recipient, reason: row.lastError ?? "" })),
    uncertainReaders: rows.filter((row) => row.state === "uncertain").map((row) => row.recipient),
    otherSkips: rows
      .filter((row) => row.state === "skipped" && row.lastError !== SKIP_UNSUBSCRIBED)
      .map((row) => ({ email: row.recipient, reason: row.lastError ?? "" })),
  };
}

function queueReaders(outbox: Outbox, name: string, readers: Reader[], write: (line: string) => void) {
  const added = outbox.enqueueMany(
    readers.map((reader) => ({
      kind: "update",
      recipient: reader.email,
      ref: name,
      payload: updatePayload(reader.token),
    })),
  );
  const known = readers.length - added;
  write(
    `${readers.length} ${readers.length === 1 ? "reader" : "readers"}: ${added} queued now${known ? `, ${known} already queued or sent before` : ""}.\n`,
  );
}

/**
 * The engine's loop over the update's rows until none is queued or in flight (the command's, and the server's when
 * it goes on with a send the command left): paced, at most one mail claimed per relay connection.
 */
export function runSend(
  outbox: Outbox,
  name: string,
  options: Omit<DrainOptions, "outbox" | "kinds"> & {
    onProgress?: () => void;
    signal?: AbortSignal;
    /** When the loop may end (default: none of the update's rows queued or in flight). */
    until?: () => boolean;
  },
) {
  const now = options.now ?? Date.now;
  const ratePerSecond = options.ratePerSecond ?? 0;
  let progressAt = -Infinity;
  const progress = (force: boolean) => {
    if (!options.onProgress || (!force && now() - progressAt < 100)) return;
    progressAt = now();
    options.onProgress();
  };
  return drainUntil(
    {
      ...options,
      outbox,
      kinds: ["update"],
      concurrency: concurrencyFor(ratePerSecond),
      leaseMs: LEASE_MS,
      onAttempt: () => progress(false),
      onIdle: () => progress(true),
    },
    options.until ??
      (() => {
        const counts = sendCounts(outbox, name);
        return counts.queued === 0 && counts.sending === 0;
      }),
    options.signal,
  );
}

/** Where the update's page is: at the site's address, then at the server on this machine (`npm start`'s port). */
const pageAddresses = (name: string, settings: Env): string[] => {
  const path = `/updates/${encodeURIComponent(name)}`;
  return [new URL(path, siteUrlOf(settings)).toString(), `http://127.0.0.1:${settings.PORT}${path}`];
};

/** Sends the update; resolves with the command's exit code. Throws a CommandError for the owner's mistakes. */
export async function sendUpdate(name: string, options: SendOptions): Promise<number> {
  const write = (text: string) => void options.output.write(text);
  const update = updateToSend(name, { test: options.test !== undefined });
  const { services } = options;
  const settings = services.mail;
  if (options.test !== undefined) return sendTestCopy(update, options.test, settings, services.transport, write);
  const list = listToRead(services, services.settings);
  if (options.dryRun) {
    const readers = await list.readers();
    write(previewText(update, readers.length, settings.from));
    // The recipients as the docs promise them, masked as every log line is: the owner recognises them, a pasted
    // output gives nobody's address away.
    write(
      [
        "",
        `${readers.length === 1 ? "The reader" : "The readers"}:`,
        ...readers.map((r) => `  ${maskEmail(r.email)}`),
        "",
      ].join("\n"),
    );
    const wait = notBefore(update, challengeToday().days.today);
    if (wait) write(`Scheduled for ${update.date}: a real send is refused until then (${wait}).\n`);
    return 0;
  }
  refuseBeforeItsDay(update, challengeToday().days.today);
  if (!options.notServedOk) await refuseUnlessServed(pageAddresses(update.name, services.settings));
  if (settings.mode.kind === "off") {
    throw new CommandError("Mail is off: set SMTP_URL (a relay, or file:///folder to capture) to send an update.");
  }
  if (settings.mode.kind === "smtp") {
    await refuseUnlessRelayTakesSender(settings.mode.url, settings.from, write);
    const dkimFile = path.join(path.dirname(settings.outboxFile), DKIM_CHECK_FILE_NAME);
    await refuseUnlessDkimPublished(() => dkimPublished(services.settings, dkimFile), write);
  }
  const owner = newOwner("send:");
  const outbox = services.outbox();
  const log = outbox.sends;
  const taken = log.take(owner, name);
  if (taken.kind === "busy") {
    const { holder } = taken;
    throw new CommandError(
      `An update is being sent already (${holder.update}, process ${holder.pid} on ${holder.host}, since ` +
        `${new Date(holder.since).toISOString()}): this command stops. Run it again when that send has ended.`,
      3,
    );
  }
  const transport = services.transport();
  let end = { finished: false, paused: false };
  try {
    // The previous sender died holding claims: those mails may have left. They are named, never re-sent silently.
    if (taken.previous) outbox.markUncertainOf(taken.previous.owner);
    queueReaders(outbox, name, await list.readers(), write);
    if (options.resendUncertain) {
      write(`${outbox.requeueUncertain({ kind: "update", ref: name })} uncertain mails queued again.\n`);
    }
    const reporter = createProgressReporter(options.output);
    const drain = (until: () => boolean, ref?: string) =>
      runSend(outbox, name, {
        owner,
        transport,
        composers: { update: updateComposer(settings.from, list) },
        onRecipient: recipientHook(list, outbox),
        ratePerSecond: settings.ratePerSecond,
        onProgress: () => reporter.update(sendCounts(outbox, name)),
        until,
        ...(ref === undefined ? {} : { ref }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    let result = await drain(() => !firstRoundOpen(outbox, name));
    if (result.kind === "done") {
      // Every reader tried once: the lock goes back, so the next update's send can start while retries go on.
      log.release(owner, { finished: false });
      const settled = () => {
        const c = sendCounts(outbox, name);
        const next = nextRetryOf(outbox, name);
        return c.sending === 0 && (next === null || next > Date.now() + retryHoldMs(services.settings));
      };
      if (!settled()) result = await drain(settled, name);
      if (result.kind === "done" && sendCounts(outbox, name).queued === 0) log.markFinished(name);
    }
    reporter.done(summaryOf(outbox, name));
    if (result.kind === "stopped") {
      log.noteStopped(name, result.reason);
      write(`The send stopped: ${result.reason}\nNothing was recorded as sent that was not; fix the cause and `);
      write("run the same command again to go on.\n");
      return 1;
    }
    if (result.kind === "interrupted") {
      // A closed terminal (SIGHUP) is not the owner's stop: the web server goes on. Ctrl-C or a stop is.
      const paused = options.signal?.reason !== "SIGHUP";
      end = { finished: false, paused };
      write(
        paused
          ? "Paused: the mails not sent yet stay queued. Run the same command to go on.\n"
          : "The terminal closed: the web server goes on with the mails not sent yet.\n",
      );
      return 130;
    }
    end = { finished: true, paused: false };
    return 0;
  } finally {
    // The outbox and the transport are the composition's: they close when the command's services stop.
    log.release(owner, end);
  }
}
