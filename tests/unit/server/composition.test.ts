// The composition root as the server and the owner's commands use it: one object built once, with every part wired
// before anything starts; a command's parts opened on first use, each once.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compose, type Composition } from "~/server-build/composition.server";
import { parseSettings } from "~/server-build/settings.server";
import { signUp } from "~/newsletter/sign-up/sign-up.server";

const dirs: string[] = [];
const composed: Composition[] = [];
afterEach(async () => {
  for (const root of composed.splice(0)) await root.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function settingsIn(extra: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "composition-"));
  dirs.push(dir);
  const mailDir = path.join(dir, "mail");
  const settings = parseSettings({
    NODE_ENV: "test",
    DATA_DIR: path.join(dir, "data"),
    SMTP_URL: pathToFileURL(mailDir).href,
    MAIL_FROM: "Alex <updates@example.com>",
    SESSION_SECRET: "a".repeat(32),
    ...extra,
  });
  return { settings, dataDir: path.join(dir, "data"), mailDir };
}

const members = (root: Composition) => [root.confirmations, root.welcomeReader, root.webhooks, root.mail, root.list];

describe("the server's composition", () => {
  it("is frozen, start replaces no member, and the limits built before start queue into the running runner", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { settings, mailDir } = settingsIn();
    const root = compose(settings, "server");
    composed.push(root);
    expect(Object.isFrozen(root)).toBe(true);
    expect(root.webhooks).not.toBeNull();
    const before = members(root);
    root.start();
    expect(members(root)).toEqual(before);
    members(root).forEach((member, i) => expect(member).toBe(before[i]));

    // The visitor's sign-up through the root: stored pending, its mail queued by the limits wired before start.
    expect(await signUp(root, "reader@example.com", "/", "203.0.113.7")).toBe("subscribed");
    // The runner, woken by the queue it was wired to, writes the confirmation mail into the capture folder.
    await vi.waitFor(() => expect(existsSync(mailDir) ? readdirSync(mailDir) : []).toHaveLength(1), {
      timeout: 20_000,
    });
  });

  it("with mail off, queues nothing and starts no runner", () => {
    const { settings } = settingsIn({ SMTP_URL: "" });
    const root = compose(settings, "server");
    composed.push(root);
    root.start();
    expect(root.confirmationOn).toBe(false);
    expect(root.confirmations.queue("reader@example.com", "203.0.113.7")).toBe(false);
    expect(root.existingOutbox()).toBeNull();
  });
});

describe("an owner's command's composition", () => {
  it("opens nothing until asked, then one outbox and one transport, closed by stop", async () => {
    const { settings, dataDir } = settingsIn();
    const root = compose(settings, "command");
    composed.push(root);
    expect(root.webhooks).toBeNull();
    expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
    expect(root.existingOutbox()).toBeNull();
    expect(existsSync(root.mail.outboxFile)).toBe(false);

    const outbox = root.outbox();
    expect(existsSync(root.mail.outboxFile)).toBe(true);
    expect(root.outbox()).toBe(outbox);
    expect(root.existingOutbox()).toBe(outbox);
    expect(root.transport()).toBe(root.transport());
    // The command's "start" is a no-op: no runner, no backups, no sweep.
    root.start();
    await root.stop();
    expect(() => outbox.counts({ kind: "update" })).toThrow();
  });
});
