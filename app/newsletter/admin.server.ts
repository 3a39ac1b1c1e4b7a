import { owner } from "~/content/site";
import { subscribersCsv } from "~/newsletter/subscribers-csv.server";
import { sqliteStore } from "~/newsletter/subscribers.server";

/**
 * The owner's tools over the embedded store (`npm run subscribers`, scripts/subscribers.mjs), exported by the server
 * build so they run wherever the server runs, the Docker image included. Null store: the list lives in Supabase.
 */
export const subscriberAdmin = {
  store: sqliteStore,
  exportCsv(): string {
    if (!sqliteStore) throw new Error("The list lives in Supabase.");
    return subscribersCsv(sqliteStore.list(), owner.siteUrl);
  },
};

export type SubscriberAdmin = typeof subscriberAdmin;
