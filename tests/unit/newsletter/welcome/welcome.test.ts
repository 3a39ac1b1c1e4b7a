import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openOutbox } from "~/mail/outbox.server";
import { TABLE } from "~/mail/outbox-table.server";
import { openSqliteList } from "~/newsletter/list/sqlite/sqlite-list.server";
import { hashToken, type Reader } from "~/newsletter/list/subscriber-list.server";
import { dialogConsent } from "~/newsletter/sign-up/consent.server";
import { SKIP_UNSUBSCRIBED } from "~/newsletter/send/update-composer.server";
import { welcomeComposer, welcomeQueue, welcomeRow } from "~/newsletter/welcome/welcome-composer.server";
import { parseWelcome, readWelcomeFile } from "~/newsletter/welcome/welcome-file.server";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "welcome-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const FROM = "Alex Placeholder <updates@example.com>";
const WELCOME = "---\nsubject: Welcome aboard\n---\n\nHello **there**.\n";

describe("the welcome file", () => {
  it("is a subject and a Markdown body; absent, there is none", () => {
    expect(parseWelcome("welcome.md", WELCOME)).toEqual({ subject: "Welcome aboard", markdown: "Hello **there**." });
    expect(readWelcomeFile(path.join(dir, "welcome.md"))).toBeNull();
  });

  it.each([
    ["Hello.\n", "front matter is missing"],
    ["---\ntitle: Hi\n---\nBody\n", "title is not a field a welcome has"],
    ["---\nsubject: ''\n---\nBody\n", "subject is missing"],
    ["---\nsubject: Hi\n---\n\n", "body is empty"],
    ['---\nsubject: "Hi\\u202Ethere"\n---\nBody\n', "subject holds a control or invisible character"],
    ["---\nsubject: [unclosed\n---\nBody\n", "front matter is not valid YAML"],
  ])("refuses %j, naming the field", (text, problem) => {
    expect(() => parseWelcome("welcome.md", text)).toThrow(`Welcome file welcome.md: ${problem}`);
  });
});

describe("the welcome in the engine", () => {
  const outboxFile = () => path.join(dir, "data", "mail-outbox.sqlite");

  it("is queued once per reader, however often confirming calls it, and only when the file exists", () => {
    const outbox = openOutbox(outboxFile());
    const wakes: number[] = [];
    const file = path.join(dir, "welcome.md");
    const queue = welcomeQueue(outbox, { wake: () => wakes.push(1) }, file);
    const reader: Reader = { email: "reader@example.com", token: "5b1c2a34-8d7e-4f60-9a1b-2c3d4e5f6a7b" };
    queue(reader);
    expect(outbox.rows({ kind: "welcome" })).toEqual([]);
    writeFileSync(file, WELCOME);
    queue(reader);
    queue({ ...reader, email: "READER@example.com" });
    expect(outbox.rows({ kind: "welcome" }).map((row) => [row.recipient, row.ref, row.payload])).toEqual([
      ["reader@example.com", "welcome", { token: reader.token }],
    ]);
    expect(wakes).toHaveLength(1);
    outbox.close();
  });

  it("goes to a confirmed reader, and to nobody who left, in the layout with the unsubscribe link", async () => {
    const file = path.join(dir, "welcome.md");
    writeFileSync(file, WELCOME);
    const list = openSqliteList(path.join(dir, "data"));
    try {
      const confirmed: Reader[] = [];
      for (const email of ["stays@example.com", "leaves@example.com"]) {
        await list.signUp(email, { state: "pending", consent: dialogConsent("/"), now: Date.now() });
        await list.issueConfirmToken(email, hashToken(`token-${email}`), Date.now());
        expect(await list.confirm(`token-${email}`, Date.now(), (reader) => confirmed.push(reader))).toBe("confirmed");
      }
      // A second press of the same link confirms nobody again, and calls nobody back.
      expect(await list.confirm("token-stays@example.com", Date.now(), (reader) => confirmed.push(reader))).toBe(
        "already",
      );
      expect(confirmed.map((reader) => reader.email)).toEqual(["stays@example.com", "leaves@example.com"]);

      await list.unsubscribe(confirmed[1]!.token);
      const compose = welcomeComposer(FROM, list, file);
      const row = (reader: Reader) => ({ ...welcomeRow(reader), payload: { token: reader.token } }) as never;
      const sent = await compose(row(confirmed[0]!));
      expect(sent).toMatchObject({ message: { to: "stays@example.com", subject: "Welcome aboard" } });
      if (!("message" in sent)) throw new Error("no message");
      expect(sent.message.html).toContain("<strong>there</strong>");
      expect(sent.message.text).toContain(`/unsubscribe?token=${confirmed[0]!.token}`);
      expect(sent.message.headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
      expect(await compose(row(confirmed[1]!))).toEqual({ skip: SKIP_UNSUBSCRIBED });
      // Suppressed (a bounce, a complaint) before the welcome left: nothing goes either.
      await list.suppress("stays@example.com", "complained", "complaint from the relay", new Date());
      expect(await compose(row(confirmed[0]!))).toEqual({ skip: SKIP_UNSUBSCRIBED });
      await list.unsuppress("stays@example.com");
      // The owner took the welcome away after it was queued: nothing goes.
      rmSync(file);
      expect(await compose(row(confirmed[0]!))).toEqual({ skip: "the welcome file was removed" });
    } finally {
      list.close();
    }
  });

  it("widens an outbox file made before the welcome, keeping its rows", () => {
    const file = outboxFile();
    mkdirSync(path.dirname(file), { recursive: true });
    // The table as it was: a check that knows only 'confirm' and 'update'.
    const before = new DatabaseSync(file);
    before.exec(TABLE.replace("'update', 'welcome'", "'update'").replace(/,\s*claim_key integer/, ""));
    before
      .prepare(
        "insert into mail_outbox (kind, recipient, ref, next_attempt_at, created_at, updated_at) " +
          "values ('update', 'old@example.com', '2025-10-01-first', 0, 0, 0)",
      )
      .run();
    expect(() =>
      before.exec(
        "insert into mail_outbox (kind, recipient, next_attempt_at, created_at, updated_at) " +
          "values ('welcome', 'x@example.com', 0, 0, 0)",
      ),
    ).toThrow(/CHECK constraint failed/);
    before.close();

    const outbox = openOutbox(file);
    expect(outbox.enqueue(welcomeRow({ email: "new@example.com", token: "u" }))).toBeTypeOf("number");
    expect(outbox.rows().map((row) => [row.kind, row.recipient])).toEqual([
      ["update", "old@example.com"],
      ["welcome", "new@example.com"],
    ]);
    // The unique (kind, ref, recipient) index came back with the table.
    expect(outbox.enqueue(welcomeRow({ email: "new@example.com", token: "u" }))).toBeNull();
    outbox.close();
  });
});
