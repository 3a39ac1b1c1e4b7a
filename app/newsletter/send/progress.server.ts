// What the owner sees while an update goes out: a bar redrawn in place on a terminal, a plain line every few seconds
// anywhere else (`docker exec` without -t, CI, a file), and one summary at the end. The formatting is pure; the
// reporter only decides when to write.

export interface SendCounts {
  /** Readers this send is for (the update's rows in the outbox). */
  total: number;
  sent: number;
  /** Readers who unsubscribed before their mail was claimed: nothing was sent to them. */
  skipped: number;
  failed: number;
  uncertain: number;
  /** What the send waits for, when it waits on the relay: its last answer (or the connection error) and when next. */
  wait?: RelayWait | null;
}

export interface RelayWait {
  /** The relay's last words, or the connection error, for the reader it concerned. */
  reason: string;
  email: string;
  /** How many readers wait for a retry. */
  count: number;
  nextAt: number;
}

/** `waiting on the relay (2 readers): 452 … (a@b.c), next try in 8 s`: why a send is not done, and until when. */
export function formatWait(wait: RelayWait, now: number): string {
  const seconds = Math.max(0, Math.ceil((wait.nextAt - now) / 1000));
  const who = wait.count === 1 ? "1 reader" : `${wait.count} readers`;
  return `waiting on the relay (${who}): ${wait.reason} (${wait.email}), next try in ${formatDuration(seconds)}`;
}

export interface FailedReader {
  email: string;
  /** The relay's own words. */
  reason: string;
}

export interface SendSummary extends SendCounts {
  update: string;
  failures: FailedReader[];
  /** Readers whose mail was in flight when a sender died: perhaps delivered, never re-sent without the flag. */
  uncertainReaders: string[];
  /** Readers skipped for another reason than leaving the list (the update gone, made a draft): the real reason. */
  otherSkips?: FailedReader[];
}

/** Readers with no answer yet. */
export const remaining = (c: SendCounts): number => Math.max(0, c.total - c.sent - c.skipped - c.failed - c.uncertain);

/** `1 h 02 min`, `3 min 05 s`, `12 s`: how long, roughly, for a person. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

const rateText = (perSecond: number) => `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond)}/s`;

function timeLeft(c: SendCounts, perSecond: number): string {
  const left = remaining(c);
  if (left === 0) return "done";
  return perSecond > 0 ? `about ${formatDuration(left / perSecond)} left` : "time left unknown";
}

/** One redrawable line for a terminal: `[#######-----]  120 of 300 sent  18/s  about 10 s left`. */
export function formatBar(c: SendCounts, perSecond: number, width = 24): string {
  const done = c.total === 0 ? 1 : (c.total - remaining(c)) / c.total;
  const filled = Math.round(done * width);
  const extra = [c.skipped && `${c.skipped} skipped`, c.failed && `${c.failed} failed`].filter(Boolean).join(", ");
  return (
    `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${c.sent} of ${c.total} sent` +
    `${extra ? ` (${extra})` : ""}  ${rateText(perSecond)}  ${timeLeft(c, perSecond)}` +
    (c.wait ? `  ${formatWait(c.wait, Date.now())}` : "")
  );
}

/** The same facts as a log line, for output that is not a terminal. */
export function formatLine(c: SendCounts, perSecond: number): string {
  return (
    `Sending: ${c.sent} of ${c.total} sent, ${c.skipped} skipped, ${c.failed} failed, ` +
    `${rateText(perSecond).replace("/s", " mails/s")}, ${timeLeft(c, perSecond)}` +
    (c.wait ? `; ${formatWait(c.wait, Date.now())}` : "")
  );
}

/** The end of a send: what happened to every reader, with the relay's words for each failure. */
export function formatSummary(s: SendSummary): string {
  const lines = [
    `Update ${s.update}: ${s.sent} of ${s.total} sent, ${s.skipped} skipped (unsubscribed), ` +
      `${s.failed} failed, ${s.uncertain} uncertain.`,
  ];
  for (const failure of s.failures) lines.push(`  failed: ${failure.email}: ${failure.reason}`);
  for (const skip of s.otherSkips ?? []) lines.push(`  skipped: ${skip.email}: ${skip.reason}`);
  if (s.uncertainReaders.length > 0) {
    lines.push(
      "Uncertain: a sender stopped, or the relay gave no answer after the whole message, while these mails were " +
        "with the relay; they may have arrived. They are not sent again unless you run the send with " +
        "--resend-uncertain:",
    );
    for (const email of s.uncertainReaders) lines.push(`  uncertain: ${email}`);
  }
  const left = remaining(s);
  if (left > 0 && s.wait) {
    lines.push(`Still ${formatWait(s.wait, Date.now())} (at ${new Date(s.wait.nextAt).toISOString()}).`);
  }
  if (left > 0) lines.push(`${left} not sent yet: run the same command again to go on.`);
  return `${lines.join("\n")}\n`;
}

/** Mails per second over the last few samples (a window, so a pause or a burst shows soon, not averaged away). */
export class RateWindow {
  #samples: { at: number; sent: number }[] = [];
  constructor(private readonly windowMs = 10_000) {}
  add(at: number, sent: number): number {
    this.#samples.push({ at, sent });
    while (this.#samples.length > 2 && at - this.#samples[0]!.at > this.windowMs) this.#samples.shift();
    const first = this.#samples[0]!;
    const seconds = (at - first.at) / 1000;
    return seconds > 0 ? (sent - first.sent) / seconds : 0;
  }
}

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressReporter {
  /** Called as often as the sender likes: the reporter decides when something is written. */
  update(counts: SendCounts): void;
  /** The summary; on a terminal the bar's line is finished first. */
  done(summary: SendSummary): void;
}

/**
 * A bar redrawn at most every `redrawMs` on a terminal; a plain line every `lineMs` (and the first at once)
 * elsewhere.
 */
export function createProgressReporter(
  output: ProgressOutput,
  options: { now?: () => number; lineMs?: number; redrawMs?: number } = {},
): ProgressReporter {
  const now = options.now ?? Date.now;
  const tty = Boolean(output.isTTY);
  const every = tty ? (options.redrawMs ?? 200) : (options.lineMs ?? 5_000);
  const rate = new RateWindow();
  let lastWrite = -Infinity;
  let drawn = false;
  return {
    update(counts) {
      const at = now();
      const perSecond = rate.add(at, counts.sent);
      if (at - lastWrite < every) return;
      lastWrite = at;
      if (tty) {
        output.write(`\r\u001b[2K${formatBar(counts, perSecond)}`);
        drawn = true;
      } else {
        output.write(`${formatLine(counts, perSecond)}\n`);
      }
    },
    done(summary) {
      if (drawn) output.write("\n");
      output.write(formatSummary(summary));
    },
  };
}
