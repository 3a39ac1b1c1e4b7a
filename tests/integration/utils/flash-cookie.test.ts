/**
 * The one flash cookie: a sign-up without JavaScript answers with a single Set-Cookie, and that cookie carries both the
 * toast and Conform's reply to the page after the redirect. Needs `npm run build` first (`npm test` does it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getHome } from "../../support/newsletter/http";
import { serverHarness, type ServerProcess } from "../../support/production-server";

const harness = serverHarness("flash-cookie-");
afterAll(() => harness.cleanup());

async function post(baseUrl: string, email: string) {
  const response = await fetch(`${baseUrl}/?index`, {
    method: "POST",
    body: new URLSearchParams({ email, website: "" }),
    redirect: "manual",
  });
  await response.arrayBuffer();
  return { status: response.status, cookies: response.headers.getSetCookie() };
}

describe("the flash cookie of a sign-up without JavaScript", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await harness.start({ DATA_DIR: harness.scratchDir() });
  });

  it("is one Set-Cookie on the redirect, whatever the outcome", async () => {
    for (const email of ["one-cookie@example.com", "one-cookie@example.com", "a@b", ""]) {
      const posted = await post(server.url, email);
      expect(posted.status).toBe(303);
      expect(posted.cookies, email).toHaveLength(1);
      expect(posted.cookies[0]).toMatch(/^__toast=[^;]+\.[^;]+;/);
    }
  });

  it("brings the toast and the form's reply (the address and its error) to the next page, then is deleted", async () => {
    const posted = await post(server.url, "reply@example");
    const page = await fetch(`${server.url}/`, { headers: { Cookie: posted.cookies[0]!.split(";")[0]! } });
    const html = await page.text();
    expect(html).toContain('data-toast="error"');
    // Only Conform's reply can put the posted address back into the form and mark the field invalid.
    expect(html).toMatch(/<input[^>]*value="reply@example"/);
    expect(html).toMatch(/<input[^>]*aria-invalid="true"/);
    expect(page.headers.getSetCookie()).toHaveLength(1);
    expect(page.headers.getSetCookie()[0]).toMatch(/^__toast=;.*Expires=Thu, 01 Jan 1970/);

    const without = await getHome(server.url);
    expect(without.toast).toBeNull();
  });
});
