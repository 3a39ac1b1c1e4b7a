// The web server goes on with a send the command left (its terminal closed, it crashed, the machine rebooted): the
// runner's update lane looks for due update mails, and when no command is sending and the owner did not pause that
// update, it takes the send lock and drains them exactly as the command would (same engine, composer, pace and
// outbox), until the update is out. The composition root adds this lane only with the embedded list.
import type { DrainPass } from "~/mail/drain.server";
import { newOwner } from "~/mail/drain.server";
import type { Outbox } from "~/mail/outbox.server";
import type { Lane, LaneTurn } from "~/mail/runner.server";
import type { MailSettings } from "~/mail/settings.server";
import { concurrencyFor, LEASE_MS, sendCounts } from "~/newsletter/send/send-command.server";
import { warnThrottled } from "~/utils/log.server";

/** The update whose mails are due and not paused by the owner, if any; and the paused ones that have mails due. */
function updatesDue(outbox: Outbox, now: number): { resume: string | null; paused: Set<string> } {
  const due = outbox.nextDue(["update"]);
  if (due === null || due > now) return { resume: null, paused: new Set() };
  const pausedByOwner = new Set(
    outbox.sends
      .records()
      .filter((record) => record.paused)
      .map((record) => record.update),
  );
  const refs = outbox
    .rows({ kind: "update", state: "queued" })
    .filter((row) => row.ref && row.nextAttemptAt <= now)
    .map((row) => row.ref!);
  return {
    resume: refs.find((ref) => !pausedByOwner.has(ref)) ?? null,
    paused: new Set(refs.filter((ref) => pausedByOwner.has(ref))),
  };
}

export function updateLane(outbox: Outbox, settings: MailSettings, checkMs = 15_000): Lane {
  let current: LaneTurn | null = null;
  // Said once per pause, so the owner who reads the log knows why the server does not go on.
  let toldPaused = new Set<string>();

  const begin = (now: number): LaneTurn | null => {
    if (outbox.sends.liveHolder()) return null;
    const { resume: name, paused } = updatesDue(outbox, now);
    for (const update of paused) {
      if (!toldPaused.has(update))
        console.info(
          `Newsletter: the update ${update} is paused: the server leaves it until its send command runs again.`,
        );
    }
    toldPaused = paused;
    if (!name) return null;
    const owner = newOwner("server:");
    const taken = outbox.sends.take(owner, name);
    if (taken.kind === "busy") return null;
    if (taken.previous) outbox.markUncertainOf(taken.previous.owner);
    console.info(`Newsletter: the server goes on sending the update ${name}, where the command left it.`);
    const end = (finished: boolean) => {
      outbox.sends.release(owner, { finished, paused: false });
      current = null;
    };
    return {
      owner,
      after(pass: DrainPass, aborted: boolean) {
        if (pass.stopped !== null) {
          outbox.sends.noteStopped(name, pass.stopped);
          warnThrottled(`Newsletter: sending the update ${name} stopped: ${pass.stopped}`, "update resume stopped");
          return end(false);
        }
        if (aborted) return end(false);
        const counts = sendCounts(outbox, name);
        if (counts.queued > 0 || counts.sending > 0) {
          // Only retries left, none due: the lock goes back until one is, so one reader's retries never hold it.
          const due = outbox.nextDue(["update"]);
          if (counts.sending === 0 && (due === null || due > Date.now())) end(false);
          return;
        }
        end(true);
        console.info(`Newsletter: the update ${name} is sent (npm run newsletter -- status).`);
      },
    };
  };

  return {
    kinds: ["update"],
    ratePerSecond: settings.ratePerSecond,
    concurrency: concurrencyFor(settings.ratePerSecond),
    leaseMs: LEASE_MS,
    checkMs,
    turn: (now) => (current ??= begin(now)),
  };
}
