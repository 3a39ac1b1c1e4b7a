import { describe, expect, it } from "vitest";
import { serverForAll } from "../../support/shared-server";

/**
 * Responses that carry a visitor's data (the flashed toast, Conform's reply with the typed address, data requests)
 * must never be kept by a shared cache: `Cache-Control: private, no-store`.
 */
const PRIVATE = "private, no-store";

const shared = serverForAll();

const form = (email: string) => new URLSearchParams({ email, website: "" });

/** Every cookie a response sets, as one Cookie header. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

/** A no-JavaScript sign-up: the 303 and the flash cookies it sets. */
async function postWithoutJs(email: string) {
  const response = await fetch(`${shared.server.url}/?index`, {
    method: "POST",
    body: form(email),
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response;
}

describe("Cache-Control of responses with a visitor's data", () => {
  it("the no-JavaScript sign-up's redirect, and the page that shows its toast and the typed address", async () => {
    const posted = await postWithoutJs("not-an-address");
    expect(posted.status).toBe(303);
    expect(posted.headers.get("cache-control")).toBe(PRIVATE);
    const page = await fetch(`${shared.server.url}/`, { headers: { Cookie: cookiesOf(posted) } });
    const html = await page.text();
    expect(html).toContain("not-an-address");
    expect(page.headers.get("cache-control")).toBe(PRIVATE);
  });

  it("the root's data request, with or without a flash", async () => {
    const plain = await fetch(`${shared.server.url}/_root.data`);
    await plain.arrayBuffer();
    expect(plain.status).toBe(200);
    expect(plain.headers.get("cache-control")).toBe(PRIVATE);

    const posted = await postWithoutJs("someone@example.com");
    const flashed = await fetch(`${shared.server.url}/_root.data`, { headers: { Cookie: cookiesOf(posted) } });
    expect(await flashed.text()).toContain("Successfully subscribed!");
    expect(flashed.headers.get("cache-control")).toBe(PRIVATE);
  });

  it("the index route's data request and the JavaScript sign-up's action", async () => {
    const loader = await fetch(`${shared.server.url}/_root.data?_routes=routes%2F_index`);
    await loader.arrayBuffer();
    expect(loader.status).toBe(200);
    expect(loader.headers.get("cache-control")).toBe(PRIVATE);

    const action = await fetch(`${shared.server.url}/_root.data?index`, {
      method: "POST",
      body: form("js-visitor@example.com"),
      headers: { "Sec-Fetch-Site": "same-origin", Origin: shared.server.url },
    });
    await action.arrayBuffer();
    expect(action.status).toBeLessThan(400);
    expect(action.headers.get("cache-control")).toBe(PRIVATE);
  });

  it("the anonymous home page stays revalidated, not private (the page cache serves it to everyone)", async () => {
    const page = await fetch(`${shared.server.url}/`);
    await page.arrayBuffer();
    expect(page.headers.get("cache-control")).toBe("no-cache");
  });
});
