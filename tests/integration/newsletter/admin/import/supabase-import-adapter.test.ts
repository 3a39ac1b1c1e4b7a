/**
 * The Supabase adapter's import calls (app/newsletter/list/supabase/imported.server.ts) over HTTP against the stand-in's
 * PostgREST in front of the real migrations on PGlite: the service role adds once in any letter case, a later file's
 * word that an imported reader left suppresses them, the anon key can neither read the list nor import, and what the
 * table's checks refuse is a failure of that row.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ImportedRow } from "~/newsletter/list/subscriber-list.server";
import { supabaseImported } from "~/newsletter/list/supabase/imported.server";
import { startStubSupabase, type StubSupabase } from "../../../../support/stub-supabase/stub";

const SERVICE_KEY = "stub-service-role-key";
const IMPORTED_AT = "2026-11-27T10:00:00.000Z";
let stub: StubSupabase;

beforeAll(async () => {
  stub = await startStubSupabase({ serviceRoleKey: SERVICE_KEY });
}, 120_000); // PGlite's first start compiles its WebAssembly
afterAll(async () => {
  await stub.close();
});
beforeEach(async () => {
  await stub.reset();
  await stub.seedEmails("Ivan@Example.com");
});

const row = (email: string, suppression: ImportedRow["suppression"] = null): ImportedRow => ({
  email,
  createdAt: "2021-03-04T10:15:00.000Z",
  importedAt: IMPORTED_AT,
  consentNote: `imported ${IMPORTED_AT} from list.csv (Mailchimp); signed up there 2021-03-04T10:15:00.000Z`,
  suppression,
});
const left = { reason: "unsubscribed" as const, at: IMPORTED_AT, detail: 'status "unsubscribed"' };

describe("the Supabase adapter's import", () => {
  it("knows the list's addresses in any letter case and adds a new reader once", async () => {
    const list = supabaseImported({ url: stub.url, serviceRoleKey: SERVICE_KEY });
    expect(await list.has("ivan@example.com")).toBe(true);
    expect(await list.has("ada@example.com")).toBe(false);
    expect(await list.addImported(row("ada@example.com"))).toBe(true);
    expect(await list.has("ADA@example.com")).toBe(true);
    expect(await list.addImported(row("IVAN@example.com"))).toBe(false);
    expect(await stub.storedEmails()).toEqual(["Ivan@Example.com", "ada@example.com"]);
    expect(await stub.rowOf("ada@example.com")).toMatchObject({
      state: "confirmed",
      created_at: new Date("2021-03-04T10:15:00.000Z"),
      confirmed_at: new Date(IMPORTED_AT),
      consent_page: row("x").consentNote,
      suppressed_reason: null,
      suppressed_detail: null,
    });
    expect(await stub.rowOf("ivan@example.com")).toMatchObject({ consent_page: null, suppressed_reason: null });
  });

  it("a later file's word that an imported reader left suppresses them, whatever the order of the files", async () => {
    const list = supabaseImported({ url: stub.url, serviceRoleKey: SERVICE_KEY });
    expect(await list.addImported(row("ada@example.com"))).toBe(true);
    expect(await list.addImported(row("Ada@Example.com", left))).toBe(true);
    expect(await stub.suppressedReason("ada@example.com")).toBe("unsubscribed");
    expect(await stub.storedEmails()).toEqual(["Ivan@Example.com", "ada@example.com"]);
  });

  it("stores a reader who left elsewhere suppressed as 'unsubscribed'", async () => {
    const list = supabaseImported({ url: stub.url, serviceRoleKey: SERVICE_KEY });
    expect(await list.addImported(row("karen@example.com", left))).toBe(true);
    expect(await stub.rowOf("karen@example.com")).toMatchObject({
      suppressed_reason: "unsubscribed",
      suppressed_detail: 'status "unsubscribed"',
      suppressed_at: new Date(IMPORTED_AT),
    });
  });

  it("is refused with the anon key: the list is not read and nothing is stored", async () => {
    const list = supabaseImported({ url: stub.url, serviceRoleKey: stub.anonKey });
    await expect(list.has("ada@example.com")).rejects.toThrow(/Supabase did not give the list: permission denied/);
    await expect(list.addImported(row("ada@example.com"))).rejects.toThrow(
      /newsletter_import_reader failed \(HTTP 401 42501\): permission denied for function/,
    );
    expect(await stub.storedEmails()).toEqual(["Ivan@Example.com"]);
  });

  it("fails the row, storing nothing, when the table's checks refuse it", async () => {
    const list = supabaseImported({ url: stub.url, serviceRoleKey: SERVICE_KEY });
    await expect(list.addImported(row("not an address"))).rejects.toThrow(/HTTP 400 23514/);
    const odd = { ...left, reason: "tired" as unknown as typeof left.reason };
    await expect(list.addImported(row("odd@example.com", odd))).rejects.toThrow(/suppressed_reason_check/);
    expect(await stub.storedEmails()).toEqual(["Ivan@Example.com"]);
  });
});
