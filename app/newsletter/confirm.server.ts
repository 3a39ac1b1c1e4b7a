/**
 * Double opt-in, when mail is on (app/mail/settings.server.ts): a sign-up stores the reader pending and queues one
 * confirmation mail in the outbox, which the server's drainer sends in the background; the mail links to /confirm,
 * whose button (a plain form post) confirms. With the embedded store always; with Supabase once
 * SUPABASE_CONFIRM_SECRET is set (its database checks the server's signature). With mail off, `signUp` is the store's
 * own sign-up, exactly as before.
 */
import { randomBytes } from "node:crypto";
import { owner } from "~/content/site";
import { type Drainer, startDrainer } from "~/mail/background.server";
import type { Composer } from "~/mail/drain.server";
import { openOutbox, type Outbox } from "~/mail/outbox.server";
import { describeMode, type MailSettings, mailSettingsOf } from "~/mail/settings.server";
import { createMailTransport, type MailTransport } from "~/mail/transport.server";
import { confirmationMail } from "~/newsletter/confirm-mail.server";
import { DAY_MS } from "~/newsletter/confirm-sqlite.server";
import { type ConfirmingStore, hashToken, sqliteConfirmations } from "~/newsletter/confirm-store.server";
import { supabaseConfirmations } from "~/newsletter/confirm-supabase.server";
import { dialogConsent } from "~/newsletter/consent.server";
import { maskEmail } from "~/newsletter/mask-email.server";
import type { SubscribeOutcome } from "~/newsletter/stores/types.server";
import { describeCause } from "~/utils/log.server";
import { embeddedStore, subscriberStore, usesSupabase } from "~/newsletter/subscribers.server";
import { env } from "~/utils/env.server";

/** A confirm token: 32 random bytes, base64url (43 characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const isConfirmToken = (value: unknown): value is string => typeof value === "string" && TOKEN.test(value);

export const mailSettings: MailSettings = mailSettingsOf(env);

/** Whether sign-ups wait for a confirmation: mail is on, and the store can hold pending readers. */
export const confirmationOn =
  mailSettings.mode.kind !== "off" && (!usesSupabase || Boolean(env.SUPABASE_CONFIRM_SECRET));

interface Running {
  store: ConfirmingStore;
  outbox: Outbox;
  transport: MailTransport;
  drainer: Drainer;
  sweep: NodeJS.Timeout;
}
let running: Running | null = null;

function confirmingStore(): ConfirmingStore | null {
  if (usesSupabase && env.SUPABASE_URL && env.SUPABASE_ANON_KEY && env.SUPABASE_CONFIRM_SECRET) {
    return supabaseConfirmations({
      url: env.SUPABASE_URL,
      anonKey: env.SUPABASE_ANON_KEY,
      secret: env.SUPABASE_CONFIRM_SECRET,
    });
  }
  const store = embeddedStore();
  return store ? sqliteConfirmations(store) : null;
}

/** The composer of 'confirm' rows: a fresh token, its hash stored now, the token only in the mail. */
export function confirmComposer(store: ConfirmingStore, now: () => number = Date.now): Composer {
  return async (row) => {
    const token = randomBytes(32).toString("base64url");
    const issued = await store.issueToken(row.recipient, hashToken(token), now());
    if (issued !== "issued") return { skip: issued === "gone" ? "no longer on the list" : "already confirmed" };
    return { message: confirmationMail(row.recipient, token, { ownerName: owner.name, siteUrl: owner.siteUrl }) };
  };
}

/** Starts the background sending of confirmation mails (the server only, at start-up). */
export function startConfirmationMail() {
  if (mailSettings.mode.kind !== "off" && usesSupabase && !confirmationOn) {
    console.warn(
      "Mail: SUPABASE_CONFIRM_SECRET is not set, so sign-ups into Supabase are stored without confirmation.",
    );
  }
  if (!confirmationOn || running) return;
  const store = confirmingStore();
  if (!store) return;
  const outbox = openOutbox(mailSettings.outboxFile);
  const transport = createMailTransport(mailSettings.mode, mailSettings.from);
  const drainer = startDrainer({
    outbox,
    transport,
    composers: { confirm: confirmComposer(store) },
    kinds: ["confirm"],
    maxPerHour: { confirm: mailSettings.maxPerHour },
  });
  const sweepNow = () =>
    store.expire(Date.now()).catch((error: unknown) => {
      console.error(`Newsletter: removing expired pending readers failed: ${describeCause(error)}`);
    });
  void sweepNow();
  const sweep = setInterval(sweepNow, DAY_MS / 24);
  sweep.unref();
  running = { store, outbox, transport, drainer, sweep };
  console.info(`Mail: confirmation of sign-ups is on, mail ${describeMode(mailSettings.mode)}.`);
}

export async function stopConfirmationMail() {
  const was = running;
  running = null;
  if (!was) return;
  clearInterval(was.sweep);
  await was.drainer.stop();
  was.transport.close();
  was.outbox.close();
}

/**
 * The sign-up: with confirmation on, the reader is stored pending and a mail is queued (the answer never waits for
 * the relay); otherwise the store's sign-up as before. Never throws.
 */
export async function signUp(email: string, page = "/"): Promise<SubscribeOutcome> {
  if (!running) return subscriberStore.subscribe(email);
  const { store, outbox, drainer } = running;
  try {
    const result = await store.signUp(email, dialogConsent(page), Date.now());
    if (result.mail) {
      outbox.enqueue({ kind: "confirm", recipient: email });
      drainer.wake();
    }
    return result.outcome;
  } catch (error) {
    console.error(`Newsletter: the sign-up of ${maskEmail(email)} failed: ${describeCause(error)}`);
    return "failed";
  }
}

/** Confirms the reader a token was mailed to: "unknown" for a wrong, used or expired token. Never throws. */
export async function confirmSignUp(token: string): Promise<"confirmed" | "unknown" | "failed"> {
  if (!isConfirmToken(token) || !running) return "unknown";
  try {
    return await running.store.confirm(token, Date.now());
  } catch (error) {
    console.error(`Newsletter: a confirmation failed: ${describeCause(error)}`);
    return "failed";
  }
}
