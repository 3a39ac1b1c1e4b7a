/**
 * A fake Mastodon server on loopback: accounts/lookup knows the owner of tests/fixtures/latest-post/mastodon.ts
 * (404 "Record not found" for anyone else), accounts/:id/statuses answers the fixture statuses, and a test can script
 * a 429 with its reset header, a 500 or a hang instead.
 */
import {
  account,
  ACCOUNT_ID,
  recordNotFound,
  statuses,
  tooManyRequests,
  USERNAME,
} from "../../fixtures/latest-post/mastodon";
import { type Answer, type FakeJsonServer, startFakeJsonServer } from "./json-server";

export type MastodonBehaviour =
  | { kind: "statuses"; body?: unknown }
  | { kind: "rate-limited"; resetInSeconds: number }
  | { kind: "status"; status: number; body?: unknown }
  | { kind: "hang" };

export interface FakeMastodon extends FakeJsonServer {
  /** The owner's profile URL on this server, as LATEST_POST_MASTODON takes it. */
  profileUrl: string;
  behave(behaviour: MastodonBehaviour): void;
}

export async function startFakeMastodon(): Promise<FakeMastodon> {
  let behaviour: MastodonBehaviour = { kind: "statuses" };
  const route = (url: URL): Answer => {
    switch (behaviour.kind) {
      case "hang":
        return { kind: "hang" };
      case "status":
        return { kind: "json", status: behaviour.status, body: behaviour.body ?? { error: "Internal server error" } };
      case "rate-limited": {
        const reset = new Date(Date.now() + behaviour.resetInSeconds * 1000).toISOString();
        const headers = { "x-ratelimit-limit": "300", "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
        return { kind: "json", status: 429, body: tooManyRequests, headers };
      }
      case "statuses":
        break;
    }
    if (url.pathname === "/api/v1/accounts/lookup") {
      const known = url.searchParams.get("acct")?.toLowerCase() === USERNAME;
      return known ? { kind: "json", status: 200, body: account } : { kind: "json", status: 404, body: recordNotFound };
    }
    if (url.pathname === `/api/v1/accounts/${ACCOUNT_ID}/statuses`) {
      return { kind: "json", status: 200, body: behaviour.body ?? statuses };
    }
    return { kind: "json", status: 404, body: recordNotFound };
  };
  const server = await startFakeJsonServer(route);
  return {
    ...server,
    profileUrl: `${server.url}/@${USERNAME}`,
    behave(next) {
      behaviour = next;
    },
  };
}
