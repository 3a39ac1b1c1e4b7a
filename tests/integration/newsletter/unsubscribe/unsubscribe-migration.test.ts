// The unsubscribe migration on real Postgres (PGlite), applied after the first one to a table that already has rows,
// and checked as Supabase's anon role: the only way a visitor can remove a row is the function, with its token.
import type { PGlite, Transaction } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, failureOf, freshSupabaseDatabase, migrate } from "../../../support/pglite-migrations";

const FIRST = "20250925000000_newsletter_subscribers.sql";
const UNSUBSCRIBE = "20261123000000_newsletter_unsubscribe.sql";
const ANSWER = "20261124000000_newsletter_unsubscribe_answer.sql";

let db: PGlite;

const asAnon = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => asRole(db, "anon", fn);

const rows = async () =>
  (
    await db.query<{ email: string; token: string }>(
      "select email, unsubscribe_token::text as token from public.newsletter_subscribers order by id",
    )
  ).rows;

beforeAll(async () => {
  db = await freshSupabaseDatabase();
  await migrate(db, FIRST);
  // Subscribers from before the new migration.
  await db.exec("insert into public.newsletter_subscribers (email) values ('old@example.com'), ('older@example.com')");
  // Applied twice without error, as a re-run must be; the next migration then changes the function's answer.
  await migrate(db, UNSUBSCRIBE, UNSUBSCRIBE, ANSWER);
}, 120_000);

afterAll(async () => {
  await db?.close();
});

describe("the unsubscribe migration", () => {
  it("gives rows that already existed a distinct token, and new rows one too", async () => {
    await asAnon((tx) => tx.exec("insert into public.newsletter_subscribers (email) values ('new@example.com')"));
    const all = await rows();
    expect(all.map((row) => row.email)).toEqual(["old@example.com", "older@example.com", "new@example.com"]);
    for (const row of all)
      expect(row.token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(all.map((row) => row.token)).size).toBe(3);
  });

  it("can be applied a second time without error", async () => {
    await migrate(db, ANSWER);
    expect(await rows()).toHaveLength(3);
  });

  it("still refuses anon to select, update or delete rows, or to choose a token", async () => {
    expect((await failureOf(asAnon((tx) => tx.query("select * from public.newsletter_subscribers")))).code).toBe(
      "42501",
    );
    expect(
      (await failureOf(asAnon((tx) => tx.query("select unsubscribe_token from public.newsletter_subscribers")))).code,
    ).toBe("42501");
    expect(
      (await failureOf(asAnon((tx) => tx.exec("update public.newsletter_subscribers set email = 'x@example.com'"))))
        .code,
    ).toBe("42501");
    expect((await failureOf(asAnon((tx) => tx.exec("delete from public.newsletter_subscribers")))).code).toBe("42501");
    const chosen = "00000000-0000-4000-8000-000000000000";
    expect(
      (
        await failureOf(
          asAnon((tx) =>
            tx.query("insert into public.newsletter_subscribers (email, unsubscribe_token) values ($1, $2)", [
              "mine@example.com",
              chosen,
            ]),
          ),
        )
      ).code,
    ).toBe("42501");
  });

  it("as anon, a wrong token deletes nothing, the right one deletes exactly its row; each says which", async () => {
    const before = await rows();
    const answer = await asAnon((tx) =>
      tx.query("select public.unsubscribe_newsletter($1) as result", ["3f1e2d4c-5b6a-4789-8abc-def012345678"]),
    );
    expect(answer.rows).toEqual([{ result: false }]);
    expect(await rows()).toEqual(before);

    const target = before.find((row) => row.email === "older@example.com")!;
    const removed = await asAnon((tx) =>
      tx.query("select public.unsubscribe_newsletter($1) as result", [target.token]),
    );
    expect(removed.rows).toEqual([{ result: true }]);
    expect((await rows()).map((row) => row.email)).toEqual(["old@example.com", "new@example.com"]);

    // Used again: nothing more goes, and the token now belongs to nobody.
    const again = await asAnon((tx) => tx.query("select public.unsubscribe_newsletter($1) as result", [target.token]));
    expect(again.rows).toEqual([{ result: false }]);
    expect(await rows()).toHaveLength(2);
  });

  it("lets someone who left subscribe again, with a new token", async () => {
    const gone = "comeback@example.com";
    await asAnon((tx) => tx.query("insert into public.newsletter_subscribers (email) values ($1)", [gone]));
    const first = (await rows()).find((row) => row.email === gone)!;
    await asAnon((tx) => tx.query("select public.unsubscribe_newsletter($1)", [first.token]));
    await asAnon((tx) => tx.query("insert into public.newsletter_subscribers (email) values ($1)", [gone]));
    const again = (await rows()).find((row) => row.email === gone)!;
    expect(again.token).not.toBe(first.token);
  });

  it("lets only anon (not authenticated, not public) execute the function, which runs with a fixed search path", async () => {
    const { rows: grants } = await db.query<{ anon: boolean; authenticated: boolean }>(
      `select has_function_privilege('anon', 'public.unsubscribe_newsletter(uuid)', 'execute') as anon,
              has_function_privilege('authenticated', 'public.unsubscribe_newsletter(uuid)', 'execute') as authenticated`,
    );
    expect(grants).toEqual([{ anon: true, authenticated: false }]);
    const { rows: config } = await db.query<{ secdef: boolean; config: string[] }>(
      "select prosecdef as secdef, proconfig as config from pg_proc where proname = 'unsubscribe_newsletter'",
    );
    expect(config).toEqual([{ secdef: true, config: ['search_path=""'] }]);
  });
});
