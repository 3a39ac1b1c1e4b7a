// The embedded list as the ledger's table test drives it (./cases.ts): each door as the product calls it.
import { mkdtempSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Door } from "~/newsletter/list/ledger";
import { openSqliteList, type SqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { hashToken } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { ADDRESS, seenOf, type TableStore } from "./cases";
import { withoutMail } from "../newsletter/without-mail";

const DAY = 24 * 60 * 60_000;

export function embeddedStore(scratch: string): TableStore & { close(): void } {
  let dir = "";
  let list: SqliteList | null = null;
  let now = 0;
  let token: string | null = null;
  const open = () => list!;
  const imported = (left: boolean) => ({
    email: ADDRESS,
    createdAt: new Date(now).toISOString(),
    importedAt: new Date(now).toISOString(),
    consentNote: "imported from export.csv (Mailchimp)",
    suppression: left ? { reason: "unsubscribed" as const, at: new Date(now).toISOString(), detail: "said so" } : null,
  });
  const close = () => {
    list?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    list = null;
  };
  const doors: Record<Door, () => Promise<unknown>> = {
    "sign-up": async () => {
      const signedUp = await open().signUp(ADDRESS, { state: "pending", consent: dialogConsent("/"), now });
      if (!signedUp.mail) return;
      const next = `token-${randomUUID()}`;
      if ((await open().issueConfirmToken(ADDRESS, hashToken(next), now)) === "issued") token = next;
    },
    "sign-up-without-mail": () => open().signUp(ADDRESS, withoutMail(now)),
    confirm: async () => (token ? open().confirm(token, now + 1) : null),
    expire: async () => {
      now += 8 * DAY;
      await open().expirePending(now);
    },
    unsubscribe: async () => {
      const row = open()
        .owner.rows()
        .find((found) => found.email === ADDRESS);
      if (row) await open().unsubscribe(row.unsubscribeToken);
    },
    // Postmark's Subscription Change with ManualSuppression, as the webhook hands it to the list.
    "relay-unsubscribe": () => open().suppress(ADDRESS, "unsubscribed", "Postmark ManualSuppression", new Date(now)),
    complaint: () => open().suppress(ADDRESS, "complained", "spam", new Date(now)),
    bounce: () => open().suppress(ADDRESS, "bounced", "550 no such user", new Date(now)),
    remove: async () => open().owner.remove(ADDRESS),
    "import-subscribed": async () => open().owner.addImported(imported(false)),
    "import-left": async () => open().owner.addImported(imported(true)),
    restore: async () =>
      open().owner.addBack([
        {
          email: ADDRESS,
          createdAt: new Date(now - DAY).toISOString(),
          unsubscribeToken: randomUUID(),
          state: "confirmed",
          confirmedAt: new Date(now - DAY).toISOString(),
          consentPage: "/",
        },
      ]),
    // A pending sign-up in the backup, its mailed link's hash with it.
    "restore-pending": async () =>
      open().owner.addBack([
        {
          email: ADDRESS,
          createdAt: new Date(now - DAY).toISOString(),
          unsubscribeToken: randomUUID(),
          state: "pending",
          consentPage: "/",
          confirmRequestedAt: new Date(now - DAY).toISOString(),
          confirmTokenHash: hashToken(`backup-${randomUUID()}`),
          confirmTokenAt: new Date(now - DAY).toISOString(),
        },
      ]),
    unsuppress: () => open().unsuppress(ADDRESS),
  };
  return {
    async reset() {
      close();
      dir = mkdtempSync(path.join(scratch, "ledger-table-"));
      list = openSqliteList(path.join(dir, "data"));
      now = Date.UTC(2026, 10, 28, 9);
      token = null;
    },
    async door(door) {
      await doors[door]();
      now += 60_000;
      return true;
    },
    async seen() {
      const row = open()
        .owner.rows()
        .find((found) => found.email === ADDRESS);
      return seenOf(
        row ? { state: row.state, suppressed: Boolean(row.suppression) } : null,
        open().owner.leftOf(ADDRESS)?.reason ?? null,
      );
    },
    close,
  };
}
