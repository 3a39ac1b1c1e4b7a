// The web server goes on with a send the command left (its terminal closed, it crashed, the machine rebooted): every
// `checkMs` it looks for due update mails, and when no command is sending and the owner did not pause that update,
// it takes the send lock and drains them exactly as the command would (same composer, pace and outbox). Only with the
// embedded store: with Supabase the list's reader check needs the service role key, which the server never holds, so
// there a send resumes when the owner runs the command again.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { type MailSettings } from "~/mail/settings.server";
import { createMailTransport } from "~/mail/transport.server";
import { createMembership, embeddedAudience } from "~/newsletter-send/readers.server";
import { concurrencyFor, LEASE_MS } from "~/newsletter-send/send-command.server";
import { openSendLog, type SendLog } from "~/newsletter-send/send-lock.server";
import { runSend } from "~/newsletter-send/send-run.server";
import { createUpdateComposer } from "~/newsletter-send/update-composer.server";
import type { SqliteStore } from "~/newsletter/stores/sqlite.server";
import { describeCause } from "~/utils/log.server";
import { warnThrottled } from "~/utils/log.server";

/** The update whose mails are due and not paused by the owner, if any. */
function updateToResume(outbox: Outbox, log: SendLog, now: number): string | null {
  const due = outbox.nextDue(["update"]);
  if (due === null || due > now) return null;
  const paused = new Set(
    log
      .records()
      .filter((record) => record.paused)
      .map((record) => record.update),
  );
  const queued = outbox.rows({ kind: "update", state: "queued" });
  return queued.find((row) => row.ref && !paused.has(row.ref) && row.nextAttemptAt <= now)?.ref ?? null;
}

export function startUpdateResume(
  store: SqliteStore,
  settings: MailSettings,
  dataDir: string,
  checkMs = 15_000,
): () => Promise<void> {
  const outbox = openOutbox(settings.outboxFile);
  const log = openSendLog(dataDir);
  const controller = new AbortController();
  let running: Promise<void> | null = null;

  async function resume(name: string) {
    const owner = `server:${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    const taken = log.take(owner, name);
    if (taken.kind === "busy") return;
    const transport = createMailTransport(settings.mode, settings.from, {
      maxConnections: concurrencyFor(settings.ratePerSecond),
    });
    let end = { finished: false, paused: false };
    try {
      if (taken.previous) outbox.markUncertainOf(taken.previous.owner);
      console.info(`Newsletter: the server goes on sending the update ${name}, where the command left it.`);
      const membership = createMembership(embeddedAudience(store));
      const result = await runSend({
        outbox,
        transport,
        name,
        owner,
        compose: createUpdateComposer(settings.from, (token) => membership.has(token)),
        ratePerSecond: settings.ratePerSecond,
        concurrency: concurrencyFor(settings.ratePerSecond),
        leaseMs: LEASE_MS,
        signal: controller.signal,
      });
      if (result.kind === "stopped") {
        warnThrottled(`Newsletter: sending the update ${name} stopped: ${result.reason}`, "update resume stopped");
      }
      end = { finished: result.kind === "done", paused: false };
      if (end.finished) console.info(`Newsletter: the update ${name} is sent (npm run newsletter -- status).`);
    } finally {
      transport.close();
      log.release(owner, end);
    }
  }

  const check = () => {
    if (running || controller.signal.aborted) return;
    let name: string | null;
    try {
      name = log.liveHolder() ? null : updateToResume(outbox, log, Date.now());
    } catch (error) {
      warnThrottled(`Newsletter: the update outbox could not be read: ${describeCause(error)}`, "update resume read");
      return;
    }
    if (!name) return;
    running = resume(name)
      .catch((error: unknown) =>
        warnThrottled(`Newsletter: sending an update failed: ${describeCause(error)}`, "update resume failed"),
      )
      .finally(() => (running = null));
  };
  const timer = setInterval(check, checkMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    controller.abort("server stop");
    await running;
    outbox.close();
    log.close();
  };
}

let stopResume: (() => Promise<void>) | null = null;

/** At the server's start: resume sends the command left, when mail is on and the list is the embedded store. */
export function startServerUpdateSends(settings: MailSettings, dataDir: string, store: SqliteStore | null) {
  if (settings.mode.kind === "off" || !store) return;
  stopResume ??= startUpdateResume(store, settings, dataDir);
}

/** At the server's stop: a send under way stops after its mails in flight, and stays queued for the next start. */
export async function stopServerUpdateSends() {
  const stop = stopResume;
  stopResume = null;
  await stop?.();
}
