/**
 * The one composition root: the environment (parsed once, app/utils/env.server.ts) becomes the subscriber list, the
 * mail settings, one outbox, one transport, and in the server the runner, the fair limits on confirmation mails, the
 * welcome queue and the webhooks' receiver. `compose` builds all of it once and answers a frozen object; `start`
 * starts what runs in the background and `stop` ends it, neither replacing a member. The server and the owner's
 * commands (`npm run newsletter`, `npm run subscribers`) compose through the same function: the commands' list,
 * outbox and transport open on first use, so a command that needs none (restore, status without an outbox) opens none.
 */
import { existsSync } from "node:fs";
import { challenge } from "~/content/site";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { type MailSettings, mailSettingsOf } from "~/mail/settings.server";
import { createMailTransport, type MailTransport } from "~/mail/transport.server";
import { type BackupSettings, startAutomaticBackups } from "~/newsletter/backups/automatic-backups.server";
import { startExpirySweep } from "~/newsletter/confirm/confirmation-composer.server";
import { openSubscriberList } from "~/newsletter/list/open-list.server";
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { sinkNotingRefusals } from "~/newsletter/send/refusal-record.server";
import { concurrencyFor } from "~/newsletter/send/send-command.server";
import { refuseServiceRoleKey } from "~/newsletter/send/service-key.server";
import type { SendServices } from "~/newsletter/send/update-to-send.server";
import type { VisitorServices } from "~/newsletter/visitor-services.server";
import { createReceiver, type Receiver } from "~/newsletter/webhooks/receive.server";
import type { AdminServices } from "~/newsletter/admin/subscriber-admin.server";
import { NO_SERVER_MAIL, type ServerMail, serverMail } from "~/server-build/server-mail.server";
import { allUpdates } from "~/updates/updates.server";
import { backupDirectory, type Env } from "~/utils/env.server";
import { warnThrottled } from "~/utils/log.server";

/** The web server (everything opened and checked at once), or an owner's command (each part on first use). */
export type Role = "server" | "command";

/** Everything the server's routes and the owner's commands are handed; each takes the part it uses. */
export interface Composition extends VisitorServices, AdminServices, SendServices {
  readonly role: Role;
  /** The one reading of the environment. */
  readonly settings: Env;
  readonly mail: MailSettings;
  /** Whether the list lives in Supabase (the owner's commands reach it only with the service role key). */
  readonly usesSupabase: boolean;
  readonly backupSettings: BackupSettings;
  list(): SubscriberList;
  /** The relays' reports on their way to the list: the server's only, null in a command. */
  readonly webhooks: Receiver | null;
  /** Whether a sign-up can be stored now, for /healthz (never a call to Supabase). */
  healthy(): boolean;
  /** Starts the background work (the runner's lanes, backups, the expiry sweep, kept webhook reports): once. */
  start(): void;
  /** Ends the background work, then closes the outbox, the transport and, last, the list. */
  stop(): Promise<void>;
}

/** Where and how many automatic backups of the embedded list are kept, dated by the site's own time zone. */
const backupSettingsOf = (settings: Env): BackupSettings => ({
  dir: backupDirectory(settings),
  keep: settings.BACKUP_KEEP,
  timeZone: challenge.timeZone,
});

/**
 * Builds the whole graph once. For the server the order holds the start-up rules: the service role key refused, the
 * update files read (a bad one stops start-up naming the file and the field), then the list opened (a bad DATA_DIR or
 * a damaged file stops start-up instead of failing sign-ups), then the welcome file, the outbox and the transport.
 */
export function compose(settings: Env, role: Role): Composition {
  if (role === "server") {
    refuseServiceRoleKey(settings);
    allUpdates();
  }
  const usesSupabase = Boolean(settings.SUPABASE_URL && settings.SUPABASE_ANON_KEY);
  const mail = mailSettingsOf(settings);
  const confirmationOn = mail.mode.kind !== "off" && (!usesSupabase || Boolean(settings.SUPABASE_CONFIRM_SECRET));

  let list: SubscriberList | null = null;
  let outbox: Outbox | null = null;
  let transport: MailTransport | null = null;
  const openedList = () => (list ??= openSubscriberList(settings));
  const openedOutbox = () => (outbox ??= openOutbox(mail.outboxFile));
  const openedTransport = () =>
    (transport ??= createMailTransport(mail.mode, mail.from, { maxConnections: concurrencyFor(mail.ratePerSecond) }));
  // Readers that must not create the file (status, count, remove, a webhook's refusal note) take it only when it exists.
  const existingOutbox = () => outbox ?? (existsSync(mail.outboxFile) ? openedOutbox() : null);

  const closeOpened = () => {
    outbox?.close();
    outbox = null;
    transport?.close();
    transport = null;
    list?.close();
    list = null;
  };

  function serverParts(): { wired: ServerMail; webhooks: Receiver | null } {
    if (role !== "server") return { wired: NO_SERVER_MAIL, webhooks: null };
    try {
      return serverPartsOpened();
    } catch (error) {
      // A bad welcome file after the list opened: what was opened closes (a development reload keeps running).
      closeOpened();
      throw error;
    }
  }

  function serverPartsOpened(): { wired: ServerMail; webhooks: Receiver } {
    const running = openedList();
    // Update sends resume only with the embedded list: with Supabase the reader check needs the service role key,
    // which the server never holds, so there a send resumes when the owner runs the command again.
    const resumesUpdates = mail.mode.kind !== "off" && running.kind === "sqlite";
    const serverWiring = serverMail({
      settings,
      mail,
      list: running,
      outbox: openedOutbox,
      transport: openedTransport,
      confirmationOn,
      resumesUpdates,
    });
    // The relays' webhooks suppress in the list: the embedded one, or Supabase's through its signed functions, which
    // take SUPABASE_CONFIRM_SECRET; without it they keep answering 503 and the relays keep their events.
    const suppresses = running.kind === "sqlite" || ("suppresses" in running && running.suppresses === true);
    const sink = suppresses ? sinkNotingRefusals(running, existingOutbox) : null;
    return {
      wired: serverWiring,
      webhooks: createReceiver({ dataDir: settings.DATA_DIR, sink: () => sink, warn: warnThrottled }),
    };
  }

  const { wired, webhooks } = serverParts();
  const stops: (() => Promise<void> | void)[] = [];
  let started = false;
  const backupSettings = backupSettingsOf(settings);
  return Object.freeze({
    role,
    settings,
    mail,
    usesSupabase,
    backupSettings,
    confirmationOn,
    confirmations: wired.confirmations,
    welcomeReader: wired.welcomeReader,
    webhooks,
    list: openedList,
    outbox: openedOutbox,
    existingOutbox,
    transport: openedTransport,
    healthy: () => usesSupabase || (list?.healthy() ?? false),
    start() {
      if (role !== "server" || started) return;
      started = true;
      const running = openedList();
      if (running.owner && running.kind === "sqlite") {
        stops.push(startAutomaticBackups(running as Parameters<typeof startAutomaticBackups>[0], backupSettings));
      }
      if (mail.mode.kind !== "off" && usesSupabase && !confirmationOn) {
        console.warn(
          "Mail: SUPABASE_CONFIRM_SECRET is not set, so sign-ups into Supabase are stored without confirmation.",
        );
      }
      const { runner } = wired;
      if (runner) {
        const stopSweep = confirmationOn ? startExpirySweep(running) : () => {};
        runner.start();
        stops.push(async () => {
          stopSweep();
          await runner.stop();
        });
      }
      webhooks?.start();
      // The start-up line about mail is env-report's mailStartupLine (server/index.mjs), said once.
    },
    async stop() {
      // Backups and the runner finish what is under way first; the list closes last.
      for (const stop of stops.splice(0).reverse()) await stop();
      webhooks?.close();
      closeOpened();
    },
  });
}
