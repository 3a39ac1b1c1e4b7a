/**
 * Double opt-in, when mail is on (app/mail/settings.server.ts): a sign-up stores the reader pending and queues one
 * confirmation mail in the outbox, which the server's runner sends in the background; the mail links to /confirm,
 * whose button (a plain form post) confirms. With the embedded list always; with Supabase once
 * SUPABASE_CONFIRM_SECRET is set (its database checks the server's signature). The composition root
 * (app/server-build/server-mail.server.ts) hands this composer to the engine for 'confirm' rows.
 */
import { createHmac } from "node:crypto";
import { owner } from "~/content/site";
import type { Composer } from "~/mail/drain.server";
import { siteUrl } from "~/utils/site-url.server";
import { confirmationMail } from "~/newsletter/confirm/confirmation-mail.server";
import { hashToken, type SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { describeCause } from "~/utils/log.server";

/** A confirm token: 32 random bytes, base64url (43 characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const isConfirmToken = (value: unknown): value is string => typeof value === "string" && TOKEN.test(value);

const HOUR_MS = 60 * 60_000;

/**
 * The token of one confirmation mail: the same for every attempt at that mail (a retry after a 4xx, a resend of an
 * uncertain one), so a retry never pushes the reader's earlier mail's link out; another mail (another outbox row) has
 * another. Unguessable without `secret` (SESSION_SECRET); only its hash is stored.
 */
export function confirmToken(secret: string, row: { id: number; createdAt: number; recipient: string }): string {
  return createHmac("sha256", secret)
    .update(`confirm\n${row.id}\n${row.createdAt}\n${row.recipient.toLowerCase()}`)
    .digest("base64url");
}

/** The composer of 'confirm' rows: the mail's token, its hash stored now, the token only in the mail. */
export function confirmationComposer(list: SubscriberList, secret: string, now: () => number = Date.now): Composer {
  return async (row) => {
    const token = confirmToken(secret, row);
    const issued = await list.issueConfirmToken(row.recipient, hashToken(token), now());
    if (issued !== "issued") return { skip: issued === "gone" ? "no longer on the list" : "already confirmed" };
    return { message: confirmationMail(row.recipient, token, { ownerName: owner.name, siteUrl: siteUrl() }) };
  };
}

/** Removes pending readers whose 7 days are over, now and every hour; answers how to stop. */
export function startExpirySweep(list: SubscriberList): () => void {
  const sweepNow = () =>
    list.expirePending(Date.now()).catch((error: unknown) => {
      console.error(`Newsletter: removing expired pending readers failed: ${describeCause(error)}`);
    });
  void sweepNow();
  const sweep = setInterval(sweepNow, HOUR_MS);
  sweep.unref();
  return () => clearInterval(sweep);
}
