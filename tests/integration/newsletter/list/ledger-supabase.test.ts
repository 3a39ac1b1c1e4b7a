/**
 * The ledger's promises with the list in Supabase, end to end: the production server and the owner's commands talk to
 * a thin stand-in of Supabase's HTTP API whose every answer comes from the real migrations on PGlite
 * (tests/support/stub-supabase/); a real SMTP relay on loopback; Mailchimp's own export layout.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importFixture } from "../../../support/import-fixture";
import { subscribe } from "../../../support/newsletter/http";
import { newsletter } from "../../../support/newsletter/cli";
import { ownerEnv, sendEnvOf, sendUpdate, supabaseWorld } from "../../../support/newsletter/supabase-world";
import { subscribers } from "../../../support/subscribers-cli";

const FIRST = "2026-11-20-first";
const world = supabaseWorld("ledger-supabase-");

const commandEnv = () => ownerEnv(world.rest);
const sendEnvNow = () => sendEnvOf(world, commandEnv());
const send = (name: string) => sendUpdate(world, commandEnv(), name);

/** Signs up through the form, waits for the confirmation mail and presses its button. */
async function signUpAndConfirm(email: string) {
  const before = world.relay.mails.length;
  expect(await subscribe(world.server.url, email)).toMatchObject({ message: "Successfully subscribed!" });
  const [mail] = (await world.relay.waitForMails(before + 1, 20_000)).slice(before);
  expect(mail!.envelopeTo).toEqual([email]);
  const token = /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(mail!.parsed.text ?? "")![1]!;
  const confirmed = await fetch(`${world.server.url}/confirm?token=${token}`, {
    method: "POST",
    body: new URLSearchParams({ token }),
  });
  expect(confirmed.status).toBe(200);
}

describe("one ledger, Supabase", () => {
  it("the same export again after a one-click unsubscribe mails nobody who left; a return by the form gets one mail", async () => {
    const subscribed = importFixture("mailchimp-subscribed.csv");
    const imported = await subscribers(path.join(world.dir, "cli-data"), ["import", subscribed], commandEnv());
    expect(imported.code, imported.stderr).toBe(0);
    await signUpAndConfirm("ada@example.org");
    const first = await send(FIRST);
    expect(first.sort()).toEqual(["ada@example.org", "ivan@example.com", "joan@example.net"]);
    const status = await newsletter(sendEnvNow(), ["status"]);
    const line = status.stdout.split("\n").find((text) => text.startsWith(`${FIRST}\t`));
    expect(line).toMatch(/\tsent to 3 of 3, finished /);

    // Ivan presses his mail's one-click unsubscribe (RFC 8058), then the owner imports the same export again.
    const ivanMail = world.relay.mails.find((mail) => mail.envelopeTo[0] === "ivan@example.com")!;
    const link = new URL(/^List-Unsubscribe: <([^>]+)>/m.exec(ivanMail.raw)![1]!);
    // The link names the owner's site; the post goes to this server, as the owner's proxy would send it there.
    const unsubscribed = await fetch(`${world.server.url}${link.pathname}${link.search}`, {
      method: "POST",
      body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }),
    });
    expect(unsubscribed.status).toBe(200);
    const again = await subscribers(path.join(world.dir, "cli-data"), ["import", subscribed], commandEnv());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("0 readers added as confirmed.");
    expect((await send("2026-11-27-second")).sort()).toEqual(["ada@example.org", "joan@example.net"]);

    // His own new sign-up, confirmed by mail, brings him back: the next update reaches him once.
    await signUpAndConfirm("ivan@example.com");
    const third = await send("2026-11-28-third");
    expect(third.filter((to) => to === "ivan@example.com")).toHaveLength(1);
    expect(third.sort()).toEqual(["ada@example.org", "ivan@example.com", "joan@example.net"]);
    // The owner removes a reader in the SQL editor: the finished send's record stays as it was.
    await world.rest.db.query("delete from public.newsletter_subscribers where email = 'joan@example.net'");
    const later = await newsletter(sendEnvNow(), ["status"]);
    expect(later.stdout.split("\n").find((text) => text.startsWith(`${FIRST}\t`))).toBe(line);
  }, 240_000);
});
