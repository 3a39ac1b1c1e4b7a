import type { LoaderFunctionArgs } from "@remix-run/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { registerHealthCheck } from "~/lib/health.server";
import { loader } from "~/routes/healthz";

const probe = () =>
  loader({ request: new Request("http://localhost/healthz"), params: {}, context: {} } as LoaderFunctionArgs);

afterEach(() => {
  // The registry is per process: leave it passing for the next test.
  registerHealthCheck("test-store", () => true);
  vi.restoreAllMocks();
});

describe("the /healthz loader", () => {
  it("answers 200 ok while every registered check passes", async () => {
    registerHealthCheck("test-store", () => true);
    registerHealthCheck("test-async", async () => true);
    const response = await probe();
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it.each([
    ["answers false", () => false],
    ["throws", () => Promise.reject(new Error("database is locked"))],
  ])("answers 503 when a check %s, and logs its name (not in the body)", async (_label, check) => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    registerHealthCheck("test-store", check);
    const response = await probe();
    expect(response.status).toBe(503);
    const body = await response.text();
    expect(body).toBe("unavailable");
    expect(body).not.toContain("test-store");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(error).toHaveBeenCalledWith(expect.stringContaining("test-store"));
  });
});
