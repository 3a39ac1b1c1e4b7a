/**
 * A fake of Bluesky's public AppView on loopback: app.bsky.feed.getAuthorFeed answers the fixture feed
 * (tests/fixtures/latest-post/bluesky.ts) for the owner's handle or DID, 400 "Profile not found" for any other actor,
 * and whatever a test scripts instead (a 429 with its reset header, a 500, a hang).
 */
import { authorFeed, OWNER_DID, OWNER_HANDLE, profileNotFound, rateLimited } from "../../fixtures/latest-post/bluesky";
import { type Answer, type FakeJsonServer, startFakeJsonServer } from "./json-server";

export type BlueskyBehaviour =
  | { kind: "feed"; body?: unknown } // the fixture feed, or another body
  | { kind: "rate-limited"; resetInSeconds: number }
  | { kind: "status"; status: number; body?: unknown }
  | { kind: "hang" }
  // A redirect to `location` (resolved against the request); `times` of them, then the feed again.
  | { kind: "redirect"; location: string; status?: number; times?: number };

export interface FakeBluesky extends FakeJsonServer {
  behave(behaviour: BlueskyBehaviour): void;
}

export async function startFakeBluesky(): Promise<FakeBluesky> {
  let behaviour: BlueskyBehaviour = { kind: "feed" };
  const route = (url: URL): Answer => {
    if (url.pathname !== "/xrpc/app.bsky.feed.getAuthorFeed") {
      return { kind: "json", status: 404, body: { error: "MethodNotImplemented", message: "Method Not Implemented" } };
    }
    const actor = url.searchParams.get("actor");
    switch (behaviour.kind) {
      case "hang":
        return { kind: "hang" };
      case "redirect": {
        const location = new URL(behaviour.location, url).toString().replace("http://fake.invalid", "");
        const status = behaviour.status ?? 302;
        if (behaviour.times !== undefined && --behaviour.times <= 0) behaviour = { kind: "feed" };
        return { kind: "json", status, body: { redirect: location }, headers: { location } };
      }
      case "status":
        return {
          kind: "json",
          status: behaviour.status,
          body: behaviour.body ?? { error: "InternalServerError", message: "Internal Server Error" },
        };
      case "rate-limited": {
        const reset = Math.floor(Date.now() / 1000) + behaviour.resetInSeconds;
        const headers = {
          "ratelimit-limit": "3000",
          "ratelimit-remaining": "0",
          "ratelimit-reset": String(reset),
          "ratelimit-policy": "3000;w=300",
        };
        return { kind: "json", status: 429, body: rateLimited, headers };
      }
      case "feed":
        if (actor !== OWNER_DID && actor !== OWNER_HANDLE) return { kind: "json", status: 400, body: profileNotFound };
        return { kind: "json", status: 200, body: behaviour.body ?? authorFeed };
    }
  };
  const server = await startFakeJsonServer(route);
  return {
    ...server,
    behave(next) {
      behaviour = next;
    },
  };
}
