import { owner } from "~/content/site";
import { subscribersCsv } from "~/newsletter/subscribers-csv.server";
import { embeddedStore, usesSupabase } from "~/newsletter/subscribers.server";

/**
 * The owner's tools over the embedded store (`npm run subscribers`, scripts/subscribers.mjs), exported by the server
 * build so they run wherever the server runs, the Docker image included.
 */
export const subscriberAdmin = {
  /** The list lives in Supabase: these tools do not reach it. */
  usesSupabase,
  /** The live store, opened on first use (throws with the reason when the file cannot be used). */
  store: embeddedStore,
  exportCsv(): string {
    const store = embeddedStore();
    if (!store) throw new Error("The list lives in Supabase.");
    return subscribersCsv(store.list(), owner.siteUrl);
  },
};

export type SubscriberAdmin = typeof subscriberAdmin;
