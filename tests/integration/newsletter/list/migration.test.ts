import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { asRole, failureOf, freshSupabaseDatabase, migrate } from "../../../support/pglite-migrations";

const MIGRATION = "20250925000000_newsletter_subscribers.sql";

let db: PGlite;

const as = <T>(role: "anon" | "authenticated", fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, role, fn);

async function storedEmails(): Promise<string[]> {
  const { rows } = await db.query<{ email: string }>("select email from public.newsletter_subscribers order by id");
  return rows.map((row) => row.email);
}

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, MIGRATION);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  await db.exec("truncate public.newsletter_subscribers restart identity");
});

describe("newsletter_subscribers migration", () => {
  it("can be applied a second time without error", async () => {
    await migrate(db, MIGRATION);
    const { rows } = await db.query<{ polname: string; polcmd: string }>(
      "select polname, polcmd from pg_policy where polrelid = 'public.newsletter_subscribers'::regclass",
    );
    expect(rows).toEqual([{ polname: "Anonymous visitors can subscribe", polcmd: "a" }]);
  });

  it("has row level security enabled", async () => {
    const { rows } = await db.query<{ relrowsecurity: boolean }>(
      "select relrowsecurity from pg_class where oid = 'public.newsletter_subscribers'::regclass",
    );
    expect(rows[0]?.relrowsecurity).toBe(true);
  });

  it("lets the owner insert and fills id and created_at", async () => {
    const { rows } = await db.query<{ id: number; email: string; created_at: Date }>(
      "insert into public.newsletter_subscribers (email) values ($1) returning id, email, created_at",
      ["foo@example.com"],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.email).toBe("foo@example.com");
    expect(Number(rows[0]?.id)).toBe(1);
    expect(rows[0]?.created_at).toBeInstanceOf(Date);
  });

  it("treats a case variant of a stored address as a duplicate (23505)", async () => {
    await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
    const error = await failureOf(
      db.query("insert into public.newsletter_subscribers (email) values ($1)", ["Foo@Example.com"]),
    );
    expect(error.code).toBe("23505");
    expect(error.constraint).toBe("newsletter_subscribers_email_lower_key");
    expect(await storedEmails()).toEqual(["foo@example.com"]);
  });

  describe("shape check", () => {
    it("accepts an address of exactly 255 characters", async () => {
      const email = `${"a".repeat(255 - "@example.com".length)}@example.com`;
      expect(email).toHaveLength(255);
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", [email]);
      expect(await storedEmails()).toEqual([email]);
    });

    it.each([
      ["longer than 255 characters", `${"a".repeat(256 - "@example.com".length)}@example.com`],
      ["without an @", "foo.example.com"],
      ["with nothing before the @", "@example.com"],
      ["with nothing after the @", "foo@"],
      ["with two @", "foo@bar@example.com"],
      ["with leading whitespace", " foo@example.com"],
      ["with trailing whitespace", "foo@example.com\n"],
      ["empty", ""],
    ])("rejects an address %s with a check violation (23514)", async (_label, email) => {
      const error = await failureOf(db.query("insert into public.newsletter_subscribers (email) values ($1)", [email]));
      expect(error.code).toBe("23514");
      expect(error.constraint).toBe("newsletter_subscribers_email_check");
    });

    it("rejects a missing address with a not-null violation (23502)", async () => {
      const error = await failureOf(db.query("insert into public.newsletter_subscribers (email) values (null)"));
      expect(error.code).toBe("23502");
    });
  });

  describe("as the anon role", () => {
    it("can insert, and the row is stored", async () => {
      await as("anon", (tx) => tx.query("insert into public.newsletter_subscribers (email) values ($1)", ["a@b.co"]));
      expect(await storedEmails()).toEqual(["a@b.co"]);
    });

    it("cannot read the list at all, not even an empty result", async () => {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
      const error = await failureOf(as("anon", (tx) => tx.query("select * from public.newsletter_subscribers")));
      expect(error.code).toBe("42501");
      expect(error.message).toBe("permission denied for table newsletter_subscribers");
    });

    it("cannot ask for the inserted row back (PostgREST return=representation)", async () => {
      const error = await failureOf(
        as("anon", (tx) =>
          tx.query("insert into public.newsletter_subscribers (email) values ($1) returning email", ["a@b.co"]),
        ),
      );
      expect(error.code).toBe("42501");
      expect(await storedEmails()).toEqual([]);
    });

    it("still learns that an address is already subscribed (23505), which the sign-up form relies on", async () => {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
      const error = await failureOf(
        as("anon", (tx) =>
          tx.query("insert into public.newsletter_subscribers (email) values ($1)", ["FOO@example.COM"]),
        ),
      );
      expect(error.code).toBe("23505");
    });

    it("cannot insert an address over 255 characters: the policy refuses it first (42501)", async () => {
      const email = `${"a".repeat(256 - "@example.com".length)}@example.com`;
      const error = await failureOf(
        as("anon", (tx) => tx.query("insert into public.newsletter_subscribers (email) values ($1)", [email])),
      );
      expect(error.code).toBe("42501");
      expect(error.message).toBe('new row violates row-level security policy for table "newsletter_subscribers"');
      expect(await storedEmails()).toEqual([]);
    });

    it("cannot choose created_at", async () => {
      const error = await failureOf(
        as("anon", (tx) =>
          tx.query("insert into public.newsletter_subscribers (email, created_at) values ($1, $2)", [
            "a@b.co",
            "2000-01-01T00:00:00Z",
          ]),
        ),
      );
      expect(error.code).toBe("42501");
      expect(error.message).toBe("permission denied for table newsletter_subscribers");
    });

    it("cannot update rows", async () => {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
      const error = await failureOf(
        as("anon", (tx) => tx.query("update public.newsletter_subscribers set email = 'x@y.z'")),
      );
      expect(error.code).toBe("42501");
      expect(await storedEmails()).toEqual(["foo@example.com"]);
    });

    it("cannot delete rows", async () => {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
      const error = await failureOf(as("anon", (tx) => tx.query("delete from public.newsletter_subscribers")));
      expect(error.code).toBe("42501");
      expect(await storedEmails()).toEqual(["foo@example.com"]);
    });

    it("cannot truncate the table", async () => {
      await db.query("insert into public.newsletter_subscribers (email) values ($1)", ["foo@example.com"]);
      const error = await failureOf(as("anon", (tx) => tx.exec("truncate public.newsletter_subscribers")));
      expect(error.code).toBe("42501");
      expect(await storedEmails()).toEqual(["foo@example.com"]);
    });
  });

  describe("as the authenticated role", () => {
    it("has no rights on the table (the site has no sign-in)", async () => {
      const insert = await failureOf(
        as("authenticated", (tx) =>
          tx.query("insert into public.newsletter_subscribers (email) values ($1)", ["a@b.co"]),
        ),
      );
      expect(insert.code).toBe("42501");
      const select = await failureOf(
        as("authenticated", (tx) => tx.query("select * from public.newsletter_subscribers")),
      );
      expect(select.code).toBe("42501");
    });
  });
});
