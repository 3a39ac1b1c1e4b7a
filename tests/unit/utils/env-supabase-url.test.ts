import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";

const withUrl = (url: string) => parseEnv({ NODE_ENV: "test", SUPABASE_URL: url, SUPABASE_ANON_KEY: "k" });

describe("SUPABASE_URL over plain HTTP", () => {
  it.each(["http://abc.supabase.co", "http://10.0.0.5:54321", "http://supabase.internal", "http://[2001:db8::1]"])(
    "refuses %s, naming the variable and the rule",
    (url) => {
      expect(() => withUrl(url)).toThrow(
        "Invalid environment: SUPABASE_URL must start with https:// (http:// only for a loopback address",
      );
    },
  );

  it.each(["http://127.0.0.1:54321", "http://127.3.4.5", "http://localhost:54321", "http://[::1]:54321"])(
    "accepts the loopback address %s",
    (url) => {
      expect(withUrl(url).SUPABASE_URL).toBe(url);
    },
  );

  it("accepts https:// anywhere", () => {
    expect(withUrl("https://abc.supabase.co").SUPABASE_URL).toBe("https://abc.supabase.co");
  });

  it("never quotes the value", () => {
    expect(() => withUrl("http://secret-host.example")).toThrow(/^(?![\s\S]*secret-host)/);
  });
});
