// The Supabase adapter's suppression over HTTP, against the stand-in's PostgREST in front of the real migrations on
// PGlite: the server's calls are signed with SUPABASE_CONFIRM_SECRET, the update command's go with the
// service role key, a key the database does not hold changes nothing, and a delivery costs a call only for a reader
// with soft bounces counted.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openSupabaseList } from "~/newsletter/list/supabase/supabase-list.server";
import { startStubSupabase, type StubSupabase } from "../../../support/stub-supabase/stub";

const KEY = "the-database-and-the-server-share-this-key";
const SERVICE_KEY = "stub-service-role-key";
const AT = new Date("2026-11-27T10:00:00.000Z");
let stub: StubSupabase;

beforeAll(async () => {
  stub = await startStubSupabase({ serviceRoleKey: SERVICE_KEY, signingKey: KEY });
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await stub.close();
});
afterEach(async () => {
  await stub.reset();
});

const list = (options: { confirmSecret?: string; serviceRoleKey?: string }) =>
  openSupabaseList({ url: stub.url, anonKey: stub.anonKey, ...options });
const rpcCalls = (name: string) => stub.requests.filter((request) => request.path === `/rest/v1/rpc/${name}`);

describe("suppression in the Supabase adapter", () => {
  it("the server's signed calls suppress, count soft bounces and lift, as the database answers", async () => {
    await stub.seedEmails("gone@example.net", "full@example.org", "reader@example.com");
    const server = list({ confirmSecret: KEY });
    expect(await server.suppress("Gone@Example.net", "bounced", "550 5.1.1\nuser unknown", AT)).toBe("suppressed");
    expect(await stub.rowOf("gone@example.net")).toMatchObject({
      suppressed_reason: "bounced",
      suppressed_detail: "550 5.1.1\nuser unknown",
      suppressed_at: AT,
    });
    expect(await server.suppress("gone@example.net", "complained", "spam", AT)).toBe("already");
    expect(await server.suppress("nobody@example.net", "bounced", "550", AT)).toBe("unknown");
    for (const n of [1, 2]) {
      expect(await server.softBounce("full@example.org", "452 full", new Date(AT.getTime() + n))).toBe("counted");
    }
    expect(await server.softBounce("full@example.org", "452 full", new Date(AT.getTime() + 2))).toBe("already");
    expect(await server.softBounce("full@example.org", "452 full", new Date(AT.getTime() + 3))).toBe("suppressed");
    expect(await server.unsuppress("full@example.org")).toEqual({ kind: "lifted" });
    expect(await server.unsuppress("full@example.org")).toEqual({ kind: "not-suppressed" });
    for (const call of rpcCalls("newsletter_suppress")) {
      expect(call.headers.apikey).toBe(stub.anonKey);
      expect(JSON.parse(call.body)).toMatchObject({ signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    // The readers of the next send (the command's key) leave the suppressed reader out.
    const readers = await list({ serviceRoleKey: SERVICE_KEY }).readers();
    expect(readers.map((reader) => reader.email)).toEqual(["full@example.org", "reader@example.com"]);
  });

  it("a key the database does not hold throws, saying so, and changes nothing", async () => {
    await stub.seedEmails("gone@example.net");
    const wrong = list({ confirmSecret: "x".repeat(40) });
    await expect(wrong.suppress("gone@example.net", "bounced", "550", AT)).rejects.toThrow(
      /Supabase refused the suppression call/,
    );
    await expect(wrong.unsuppress("gone@example.net")).rejects.toThrow(/refused/);
    expect(await stub.suppressedReason("gone@example.net")).toBeNull();
  });

  it("without the secret or the service role key, nothing can be suppressed and the list says why", async () => {
    await stub.seedEmails("gone@example.net");
    const bare = list({});
    expect(bare.suppresses).toBe(false);
    await expect(bare.suppress("gone@example.net", "bounced", "550", AT)).rejects.toThrow(/SUPABASE_CONFIRM_SECRET/);
    await bare.delivered("gone@example.net");
    expect(stub.requests.filter((request) => request.path.startsWith("/rest/v1/rpc/"))).toEqual([]);
  });

  it("the command's service role key needs no signature, and resets soft bounces only where some are counted", async () => {
    await stub.seedEmails("full@example.org", "reader@example.com");
    const command = list({ serviceRoleKey: SERVICE_KEY });
    expect(command.suppresses).toBe(true);
    expect(await command.softBounce("full@example.org", "452 full", AT)).toBe("counted");
    expect(JSON.parse(rpcCalls("newsletter_soft_bounce")[0]!.body)).toMatchObject({ signature: null });
    expect(rpcCalls("newsletter_soft_bounce")[0]!.headers.apikey).toBe(SERVICE_KEY);
    await command.readers();
    await command.delivered("reader@example.com");
    expect(rpcCalls("newsletter_delivered")).toHaveLength(0);
    await command.delivered("Full@example.org");
    expect(rpcCalls("newsletter_delivered")).toHaveLength(1);
    expect(await stub.rowOf("full@example.org")).toMatchObject({ soft_bounces: 0 });
    await command.delivered("full@example.org");
    expect(rpcCalls("newsletter_delivered")).toHaveLength(1);
  });
});
