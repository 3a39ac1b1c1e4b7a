/**
 * The one composition root: the environment (parsed once, app/utils/env.server.ts) becomes the subscriber list, the
 * outbox, the transport, the runner and the backups, built here and started and stopped together. The web server
 * starts them (startServices, from build-entry's onStart); the owner's tools take the list and the settings lazily
 * (services(), opened on first use, closed by the same stop). Everything else is handed what it needs.
 */
import path from "node:path";
import { recipientHook } from "~/newsletter/list/recipient-hook.server";
import { provideSuppressionSink } from "~/newsletter/webhooks/sink.server";
import { sinkNotingRefusals } from "~/newsletter/send/refusal-record.server";
import { challenge } from "~/content/site";
import { type MailSettings, mailSettingsOf } from "~/mail/settings.server";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { createMailTransport, type MailTransport } from "~/mail/transport.server";
import { type Runner, startRunner } from "~/mail/runner.server";
import type { Lane } from "~/mail/runner.server";
import { type BackupSettings, startAutomaticBackups } from "~/newsletter/backups/automatic-backups.server";
import { confirmationComposer, startExpirySweep } from "~/newsletter/confirm/confirmation-composer.server";
import { openSubscriberList } from "~/newsletter/list/open-list.server";
import type { Reader, SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { concurrencyFor } from "~/newsletter/send/send-command.server";
import { refuseServiceRoleKey } from "~/newsletter/send/service-key.server";
import { updateComposer } from "~/newsletter/send/update-composer.server";
import { updateLane } from "~/newsletter/send/update-lane.server";
import { welcomeComposer, welcomeQueue } from "~/newsletter/welcome/welcome-composer.server";
import type { VisitorServices } from "~/newsletter/visitor-services.server";
import { readWelcomeFile } from "~/newsletter/welcome/welcome-file.server";
import { allUpdates } from "~/updates/updates.server";
import { backupDirectory, env } from "~/utils/env.server";
import { type ConfirmationGate, confirmationGate } from "~/newsletter/sign-up/fair-confirmations.server";
import { CONFIRMATION_LIMITS } from "~/newsletter/sign-up/confirmation-limits";
import { PENDING_FOR_MS } from "~/newsletter/list/sqlite/double-opt-in.server";

/** Where no outbox is open (the owner's tools): every mail fits, and none is queued. */
const NO_CONFIRMATIONS: ConfirmationGate = { room: () => ({ fits: true }), queue: () => false, logHeld: () => {} };

/**
 * Everything running, for the server and the owner's tools; the visitors' actions are handed the part they use
 * (VisitorServices). The fair limits and the welcome act in the server only: elsewhere every mail fits, none is
 * queued, and no welcome goes out.
 */
export interface Services extends VisitorServices {
  readonly mail: MailSettings;
  /** Whether the list lives in Supabase (the owner's tools do not reach it). */
  readonly usesSupabase: boolean;
  /** The list, opened on first use: the server opens it at start, so a bad DATA_DIR stops start-up. */
  list(): SubscriberList;
  /** Whether a sign-up can be stored now, for /healthz (never a call to Supabase). */
  healthy(): boolean;
  readonly backupSettings: BackupSettings;
  stop(): Promise<void>;
}

/** Where and how many automatic backups of the embedded list are kept, dated by the site's own time zone. */
const backupSettings = (): BackupSettings => ({
  dir: backupDirectory(),
  keep: env.BACKUP_KEEP,
  timeZone: challenge.timeZone,
});

function buildServices(): Services & { opened: () => SubscriberList | null; stops: (() => Promise<void> | void)[] } {
  const usesSupabase = Boolean(env.SUPABASE_URL && env.SUPABASE_ANON_KEY);
  const mail = mailSettingsOf(env);
  let list: SubscriberList | null = null;
  const stops: (() => Promise<void> | void)[] = [];
  const services = {
    mail,
    usesSupabase,
    list: () => (list ??= openSubscriberList(env)),
    opened: () => list,
    confirmationOn: mail.mode.kind !== "off" && (!usesSupabase || Boolean(env.SUPABASE_CONFIRM_SECRET)),
    confirmations: NO_CONFIRMATIONS,
    welcomeReader: (_reader: Reader) => {},
    healthy: () => usesSupabase || (list?.healthy() ?? false),
    backupSettings: backupSettings(),
    stops,
    async stop() {
      // Backups and the runner finish what is under way first; the list closes last.
      for (const stop of stops.splice(0).reverse()) await stop();
      list?.close();
      list = null;
    },
  };
  return services;
}

let current: ReturnType<typeof buildServices> | null = null;

/** The services of this process: the server's once started, else the tools' (the list opened on first use). */
export function services(): Services {
  current ??= buildServices();
  return current;
}

/**
 * What only the server starts (the owner's tools do not): the list, opened now so that a bad DATA_DIR or a damaged
 * file stops start-up instead of failing sign-ups; its automatic backups; and, with mail on, the outbox, the
 * transport and the one runner (confirmations; updates the command left). The update files are read first: a bad
 * one stops start-up with the line naming the file and the field, not the first visitor's page.
 */
export function startServices(): Services {
  refuseServiceRoleKey(env);
  allUpdates();
  const built = services() as ReturnType<typeof buildServices>;
  if (built.stops.length > 0) return built;
  const list = built.list();
  // The relays' webhooks suppress in the list: the embedded one, or Supabase's through its signed functions, which
  // take SUPABASE_CONFIRM_SECRET; without it they keep answering 503 and the relays keep their events.
  if (list.kind === "sqlite" || ("suppresses" in list && list.suppresses === true)) {
    provideSuppressionSink(sinkNotingRefusals(list, built.mail.outboxFile));
    built.stops.push(() => provideSuppressionSink(null));
  }
  if (list.owner && list.kind === "sqlite") {
    const stopBackups = startAutomaticBackups(
      list as Parameters<typeof startAutomaticBackups>[0],
      built.backupSettings,
    );
    built.stops.push(stopBackups);
  }
  const { mail } = built;
  if (mail.mode.kind !== "off" && built.usesSupabase && !built.confirmationOn) {
    console.warn(
      "Mail: SUPABASE_CONFIRM_SECRET is not set, so sign-ups into Supabase are stored without confirmation.",
    );
  }
  // Update sends resume only with the embedded list: with Supabase the reader check needs the service role key,
  // which the server never holds, so there a send resumes when the owner runs the command again.
  const resumesUpdates = mail.mode.kind !== "off" && list.kind === "sqlite";
  if (!built.confirmationOn && !resumesUpdates) {
    built.stops.push(() => {});
    return built;
  }
  // A welcome file that cannot be sent stops start-up as a bad update file does, naming the file and the field.
  const welcomeFile = path.resolve(env.WELCOME_FILE);
  readWelcomeFile(welcomeFile);
  const outbox: Outbox = openOutbox(mail.outboxFile);
  const transport: MailTransport = createMailTransport(mail.mode, mail.from, {
    maxConnections: concurrencyFor(mail.ratePerSecond),
  });
  const lanes: Lane[] = [];
  if (built.confirmationOn) lanes.push({ kinds: ["confirm"], maxPerHour: { confirm: mail.maxPerHour } });
  if (resumesUpdates) lanes.push(updateLane(outbox, mail, env.MAIL_RESUME_CHECK_SECONDS * 1000));
  if (built.confirmationOn) lanes.push({ kinds: ["welcome"] });
  const runner: Runner = startRunner({
    outbox,
    transport,
    composers: {
      confirm: confirmationComposer(list, env.SESSION_SECRET),
      update: updateComposer(mail.from, list),
      welcome: welcomeComposer(mail.from, list, welcomeFile),
    },
    onRecipient: recipientHook(list, outbox),
    expireAfterMs: { confirm: PENDING_FOR_MS },
    lanes,
  });
  const gate = confirmationGate(outbox, {
    ...CONFIRMATION_LIMITS,
    perVisitor: env.CONFIRM_MAILS_PER_VISITOR || Infinity,
    // A network holds many visitors: twice a visitor's share, and no limit when visitors have none.
    perNetwork: env.CONFIRM_MAILS_PER_VISITOR
      ? Math.max(CONFIRMATION_LIMITS.perNetwork, 2 * env.CONFIRM_MAILS_PER_VISITOR)
      : Infinity,
  });
  built.confirmations = {
    ...gate,
    queue: (email, client, now) => {
      const queued = gate.queue(email, client, now);
      if (queued) runner.wake();
      return queued;
    },
  };
  built.welcomeReader = welcomeQueue(outbox, runner, welcomeFile);
  const stopSweep = built.confirmationOn ? startExpirySweep(list) : () => {};
  built.stops.push(() => {
    outbox.close();
    transport.close();
  });
  built.stops.push(async () => {
    stopSweep();
    await runner.stop();
  });
  // The start-up line about mail is env-report's mailStartupLine (server/index.mjs), said once.
  return built;
}

/** Stops what was started, and closes the list, when the server (or an owner's tool) stops. */
export async function stopServices() {
  const was = current;
  current = null;
  await was?.stop();
}
