/**
 * `npm run subscribers -- import` with the list in Supabase (the stand-in's PostgREST in front of the real migrations
 * on PGlite), the service role key given to the command alone: a Mailchimp and a Substack export bring in exactly
 * their active, valid, new addresses, a dry run writes nothing, a second import adds nothing, and the next update
 * (`npm run newsletter -- send`, a real SMTP relay on loopback) reaches them and the readers already there, and none
 * of those the files said left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importFixture } from "../../../../support/import-fixture";
import { sendSetupPerTest } from "../../../../support/newsletter/send-setup";
import { newsletter } from "../../../../support/newsletter/cli";
import { startStubSupabase, type StubSupabase } from "../../../../support/stub-supabase/stub";
import { subscribers } from "../../../../support/subscribers-cli";

const SERVICE_KEY = "stub-service-role-key";
const NAME = "2026-11-20-first-launch";
const setup = sendSetupPerTest("import-supabase-", { name: NAME, front: { title: "First", summary: "Out" } });
let stub: StubSupabase;

beforeAll(async () => {
  stub = await startStubSupabase({ serviceRoleKey: SERVICE_KEY });
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await stub.close();
});

const supabase = (key?: string): Record<string, string> => ({
  SUPABASE_URL: stub.url,
  SUPABASE_ANON_KEY: stub.anonKey,
  ...(key === undefined ? {} : { SUPABASE_SERVICE_ROLE_KEY: key }),
});
const importing = (file: string, key?: string, ...more: string[]) =>
  subscribers(setup.dataDir, ["import", importFixture(file), ...more], supabase(key));
const importCalls = () => stub.callsOf("newsletter_import_reader");
/** The addresses stored, and which of them are suppressed for what. */
async function stored() {
  const rows = await Promise.all(
    (await stub.storedEmails()).map(async (email) => [email, await stub.suppressedReason(email)] as const),
  );
  return { all: rows.map(([email]) => email), reasons: new Map(rows) };
}

describe("npm run subscribers -- import, with the list in Supabase", () => {
  it("says where the service role key goes when it is not given, and changes nothing", async () => {
    await stub.reset();
    await stub.seedEmails("ivan@example.com");
    const run = await importing("substack.csv");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("SUPABASE_SERVICE_ROLE_KEY=<key> npm run subscribers -- import <file.csv>");
    expect(run.stderr).toContain("never put it in the web server's environment");
    // A wrong key: Supabase's own words, and nothing written.
    const wrong = await importing("substack.csv", "not-the-key");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("Supabase did not give the list: Invalid API key");
    expect(wrong.stderr).not.toContain("not-the-key");
    expect(importCalls()).toBe(0);
    expect(await stub.storedEmails()).toEqual(["ivan@example.com"]);
    // The other subcommands still point at the dashboard, key or not.
    const count = await subscribers(setup.dataDir, ["count"], supabase(SERVICE_KEY));
    expect(count.code).toBe(2);
    expect(count.stderr).toContain("The list lives in Supabase");
  }, 90_000);

  it("brings in the active, valid, new addresses of a Mailchimp and a Substack export; the next update reaches them", async () => {
    await stub.reset();
    await stub.seedEmails("ivan@example.com");
    const ivanToken = await stub.tokenOf("ivan@example.com");

    const dry = await importing("substack.csv", SERVICE_KEY, "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("4 readers would be added as confirmed.");
    expect(importCalls()).toBe(0);
    expect(await stub.storedEmails()).toEqual(["ivan@example.com"]);

    for (const file of ["mailchimp-subscribed.csv", "mailchimp-unsubscribed.csv", "substack.csv"]) {
      // Mailchimp's unsubscribed export is all readers who left: it is written only with --yes.
      const yes = file === "mailchimp-unsubscribed.csv" ? ["--yes"] : [];
      const run = await importing(file, SERVICE_KEY, ...yes);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(SERVICE_KEY);
    }
    // Substack: grace's paid plan ended (a free reader still) and linus turned mail off; Mailchimp: karen unsubscribed
    // there. Neither someone@localhost (refused by the sign-up rule) nor Ivan@Example.com (on the list already) comes in.
    const { all, reasons } = await stored();
    const active = all.filter((email) => !reasons.get(email));
    expect(active).toEqual([
      "ivan@example.com",
      "joan@example.net",
      "ada@example.com",
      "grace@example.org",
      "margaret@example.com",
      "ken@example.com",
    ]);
    expect(all.filter((email) => reasons.get(email))).toEqual(["karen@example.com", "linus@example.com"]);
    expect(reasons.get("karen@example.com")).toBe("unsubscribed");
    // Ivan keeps his own record; Ada's says where she came from.
    expect(await stub.tokenOf("ivan@example.com")).toBe(ivanToken);
    expect(await stub.rowOf("ivan@example.com")).toMatchObject({ consent_page: null });
    expect(await stub.rowOf("ada@example.com")).toMatchObject({
      created_at: new Date("2021-03-04T10:15:00.000Z"),
      suppressed_reason: null,
    });
    expect((await stub.rowOf("ada@example.com"))?.consent_page).toMatch(
      /^imported \d{4}-\S+ from substack\.csv \(Substack\); signed up there 2021-03-04T10:15:00\.000Z; the file said /,
    );

    const calls = importCalls();
    const again = await importing("substack.csv", SERVICE_KEY);
    expect(again.code, again.stderr).toBe(0);
    expect(await stub.storedEmails()).toEqual(all);
    // Known from the one read of the list: the function is asked only for the one the file says left (linus: that
    // word reaches the list whatever is there), and changes nothing.
    expect(importCalls()).toBe(calls + 1);

    const send = await newsletter(setup.env(supabase(SERVICE_KEY)), ["send", NAME]);
    expect(send.code, send.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual([...active].sort());
  }, 150_000);

  // Substack's current export, email_list.<publication>.csv (columns as Substack writes them; active_subscription is
  // the paid flag, as Ghost's own Substack importer reads it): five readers in, the one with mail off suppressed.
  it("a current Substack export: three free and two paid confirmed, one suppressed; the next send reaches the five", async () => {
    await stub.reset();
    const run = await importing("email_list.my-publication.csv", SERVICE_KEY);
    expect(run.code, run.stderr).toBe(0);
    const { all, reasons } = await stored();
    const five = all.filter((email) => !reasons.get(email));
    expect(five.sort()).toEqual(
      [
        "rosalind@example.com",
        "barbara@example.org",
        "edsger@example.net",
        "frances@example.com",
        "john@example.com",
      ].sort(),
    );
    expect(all.filter((email) => reasons.get(email))).toEqual(["alan@example.org"]);
    expect(reasons.get("alan@example.org")).toBe("unsubscribed");

    const send = await newsletter(setup.env(supabase(SERVICE_KEY)), ["send", NAME]);
    expect(send.code, send.stderr).toBe(0);
    expect(setup.relay.mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual(five);
  }, 120_000);
});
