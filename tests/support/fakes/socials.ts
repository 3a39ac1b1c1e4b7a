/**
 * Loopback fakes of both social services (Bluesky and Mastodon) for all the tests of a file: started before them,
 * closed after them.
 */
import { afterAll, beforeAll } from "vitest";
import { type FakeBluesky, startFakeBluesky } from "./bluesky";
import { type FakeMastodon, startFakeMastodon } from "./mastodon";

export interface FakeSocials {
  readonly bluesky: FakeBluesky;
  readonly mastodon: FakeMastodon;
}

export function fakeSocialsForAll(): FakeSocials {
  let started: FakeSocials | undefined;
  const now = () => {
    if (!started) throw new Error("the fake services are there once their beforeAll has run");
    return started;
  };
  beforeAll(async () => {
    const [bluesky, mastodon] = await Promise.all([startFakeBluesky(), startFakeMastodon()]);
    started = { bluesky, mastodon };
  });
  afterAll(async () => {
    await Promise.all([started?.bluesky.close(), started?.mastodon.close()]);
    started = undefined;
  });
  return {
    get bluesky() {
      return now().bluesky;
    },
    get mastodon() {
      return now().mastodon;
    },
  };
}
