// The import migration on real Postgres (PGlite, with pgcrypto as Supabase has it), applied after every earlier one to
// a list that has readers, and called as Supabase's roles: only the service role may import; an imported reader is
// confirmed with their consent note, an address there in any letter case is left untouched, and a reader imported as
// 'unsubscribed' is out of every send, every sign-up mail and every confirmation.
import { createHash, createHmac, randomBytes } from "node:crypto";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asRole,
  failureOf,
  freshSupabaseDatabase,
  migrate,
  sendReaders,
  storeSigningKey,
} from "../../../../support/pglite-migrations";

const EARLIER = [
  "20250925000000_newsletter_subscribers.sql",
  "20261123000000_newsletter_unsubscribe.sql",
  "20261124000000_newsletter_unsubscribe_answer.sql",
  "20261124100000_newsletter_confirmation.sql",
  "20261127000000_newsletter_suppression.sql",
  "20261127000100_newsletter_suppression_sign_up.sql",
];
const IMPORT = "20261127000500_newsletter_import.sql";
const KEY = "k".repeat(40);
const IMPORTED_AT = "2026-11-27T10:00:00.000Z";
const NOTE = `imported ${IMPORTED_AT} from list.csv (Mailchimp); signed up there 2021-03-04T10:15:00.000Z`;

let db: PGlite;

const as = <T>(role: string, fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, role, fn);

async function call(role: string, sql: string, params: unknown[]): Promise<unknown> {
  return as(
    role,
    async (tx) => (await tx.query<{ answer: unknown }>(`select ${sql} as answer`, params)).rows[0]!.answer,
  );
}

const importReader = (
  email: string,
  reason: string | null = null,
  role = "service_role",
  signedUpAt: string | null = "2021-03-04T10:15:00.000Z",
) =>
  call(role, "public.newsletter_import_reader($1, $2, $3, $4, $5, $6)", [
    email,
    signedUpAt,
    IMPORTED_AT,
    NOTE,
    reason,
    reason ? 'status "unsubscribed"' : null,
  ]);

const rowOf = async (email: string) =>
  (
    await db.query<Record<string, unknown>>(
      "select email, state, created_at, confirmed_at, consent_page, suppressed_reason, suppressed_detail, " +
        "suppressed_at from public.newsletter_subscribers where lower(email) = lower($1)",
      [email],
    )
  ).rows;

const readers = () => sendReaders(db);

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, ...EARLIER);
  await db.exec("insert into public.newsletter_subscribers (email) values ('a@example.org'), ('b@example.org')");
  await storeSigningKey(db, KEY);
  // A re-run must not fail.
  await migrate(db, IMPORT, IMPORT);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the import migration", () => {
  it("refuses the anon and authenticated roles, storing nothing", async () => {
    for (const role of ["anon", "authenticated"]) {
      expect((await failureOf(importReader("intruder@example.org", null, role))).code).toBe("42501");
    }
    expect(await rowOf("intruder@example.org")).toEqual([]);
  });

  it("lets the service role add a confirmed reader with the consent note and the original date", async () => {
    expect(await importReader("ada@example.com")).toBe("added");
    const [row] = await rowOf("ada@example.com");
    expect(row).toMatchObject({
      email: "ada@example.com",
      state: "confirmed",
      consent_page: NOTE,
      suppressed_reason: null,
      suppressed_detail: null,
      suppressed_at: null,
    });
    expect((row!.created_at as Date).toISOString()).toBe("2021-03-04T10:15:00.000Z");
    expect((row!.confirmed_at as Date).toISOString()).toBe(IMPORTED_AT);
    expect(await readers()).toContain("ada@example.com");
    // Without a date in the file, the reader's sign-up is the import.
    expect(await importReader("joan@example.net", null, "service_role", null)).toBe("added");
    expect(((await rowOf("joan@example.net"))[0]!.created_at as Date).toISOString()).toBe(IMPORTED_AT);
  });

  it("adds nothing the second time, in any letter case, and leaves the reader there untouched", async () => {
    const before = await rowOf("a@example.org");
    expect(await importReader("A@Example.ORG")).toBe("exists");
    expect(await importReader("ADA@example.com", "unsubscribed")).toBe("exists");
    expect(await rowOf("a@example.org")).toEqual(before);
    expect((await rowOf("ada@example.com"))[0]).toMatchObject({ suppressed_reason: null });
    const count = await db.query<{ n: number }>(
      "select count(*)::int as n from public.newsletter_subscribers where lower(email) in ('a@example.org', 'ada@example.com')",
    );
    expect(count.rows[0]!.n).toBe(2);
  });

  it("stores a reader who left elsewhere as suppressed 'unsubscribed': never mailed, never revived", async () => {
    expect(await importReader("karen@example.com", "unsubscribed")).toBe("added");
    expect((await rowOf("karen@example.com"))[0]).toMatchObject({
      state: "confirmed",
      suppressed_reason: "unsubscribed",
      suppressed_detail: 'status "unsubscribed"',
    });
    expect(await readers()).not.toContain("karen@example.com");
    // A later import cannot revive them, nor can a sign-up (a duplicate, no mail) or a confirmation token.
    expect(await importReader("karen@example.com")).toBe("exists");
    expect(await call("anon", "public.newsletter_sign_up($1, '/', 'v1', 'Get Updates')", ["Karen@example.com"])).toBe(
      "duplicate",
    );
    const hash = createHash("sha256").update(randomBytes(32).toString("base64url")).digest("hex");
    const issuedAt = Date.now();
    const email = "karen@example.com";
    const signature = createHmac("sha256", KEY).update(`${email}\n${hash}\n${issuedAt}`).digest("hex");
    expect(
      await call("anon", "public.newsletter_issue_confirm_token($1, $2, $3, $4)", [email, hash, issuedAt, signature]),
    ).toBe("gone");
    expect((await rowOf(email))[0]).toMatchObject({ suppressed_reason: "unsubscribed" });
    expect(await readers()).not.toContain(email);
  });

  it("refuses a reason the list does not know and an address the table's check refuses", async () => {
    expect((await failureOf(importReader("odd@example.com", "tired"))).code).toBe("23514");
    expect((await failureOf(importReader("not an address"))).code).toBe("23514");
    expect(await rowOf("odd@example.com")).toEqual([]);
  });
});
