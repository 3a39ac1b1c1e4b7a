import { describe, expect, it } from "vitest";
import { MAX_WEBHOOK_BODY_BYTES } from "~/newsletter/webhooks/limits";
import {
  checkTarget,
  crossSiteVerdict,
  isOneClickUnsubscribe,
  isValidHost,
  MAX_PATH_SEGMENTS,
  maxBodyBytes,
} from "~/server-build/request-guard.server";
import { MAX_DRAIN_BYTES } from "~/utils/read-form.server";

describe("checkTarget", () => {
  it.each(["/", "/?index", "/unsubscribe?token=3f1e2d4c-5b6a-4789-8abc-def012345678", "/build/root-ABC.js", "/%C3%A9"])(
    "lets %s through",
    (target) => expect(checkTarget(target)).toBeNull(),
  );

  it("bounds the depth: the deepest allowed path passes, one segment more is 414", () => {
    expect(checkTarget("/a".repeat(MAX_PATH_SEGMENTS))).toBeNull();
    expect(checkTarget("/a".repeat(MAX_PATH_SEGMENTS + 1))).toEqual({ status: 414, reason: "path too deep" });
  });

  it("counts only the path's slashes, not the query's", () => {
    expect(checkTarget(`/?next=${"/a".repeat(100)}`)).toBeNull();
  });

  it.each([
    ["a target over 2 KB", `/${"a".repeat(2_048)}`, 414],
    ["a 14 KB deep path", `/${"a/".repeat(7_000)}`, 414],
    ["bad percent-encoding", "/%E0%A4%A", 400],
    ["an absolute-form target", "http://example.com/", 400],
    ["an asterisk", "*", 400],
  ])("refuses %s", (_label, target, status) => {
    expect(checkTarget(target)?.status).toBe(status);
  });
});

describe("isValidHost", () => {
  it.each([
    "example.com",
    "example.com:443",
    "x:1",
    "x:65535",
    "127.0.0.1:3000",
    "[::1]:3000",
    "[2001:db8::1]",
    "localhost",
  ])("takes %s", (host) => expect(isValidHost(host)).toBe(true));
  it.each([
    "[",
    "a b",
    "x:99999",
    "x:65536",
    "x:0",
    "[::1]:00000",
    "x:",
    "example.com/path",
    "a@b",
    "",
    "[zz::1]",
    "exa mple.com:80",
  ])("refuses %j", (host) => expect(isValidHost(host)).toBe(false));
});

describe("crossSiteVerdict", () => {
  const ownHosts = ["127.0.0.1:3000", "example.com"];
  it.each([
    ["same-origin", undefined, "allow"],
    ["same-origin", "https://example.com", "allow"],
    // The browser's word wins over an Origin that a proxy's Host rewrite makes look foreign.
    ["same-origin", "https://elsewhere.example", "allow"],
    ["none", undefined, "allow"],
    ["same-site", "https://blog.example.com", "refuse"],
    ["cross-site", "https://example.com", "refuse"],
    ["cross-site", undefined, "refuse"],
  ] as const)("Sec-Fetch-Site %s with Origin %s: %s", (secFetchSite, origin, verdict) => {
    expect(crossSiteVerdict({ secFetchSite, origin, ownHosts })).toBe(verdict);
  });

  it.each([
    [undefined, "allow"],
    ["https://example.com", "allow"],
    ["http://127.0.0.1:3000", "allow"],
    ["https://example.com:443", "allow"],
    ["https://attacker.example", "refuse"],
    ["https://example.com.attacker.example", "refuse"],
    ["null", "refuse"],
    ["not a url", "refuse"],
  ] as const)("without Fetch Metadata, Origin %s: %s", (origin, verdict) => {
    expect(crossSiteVerdict({ secFetchSite: undefined, origin, ownHosts })).toBe(verdict);
  });
});

describe("maxBodyBytes", () => {
  it("bounds a relay's webhook post at 1 MiB (Brevo's 500-event batch fits) and every other post at the form bound", () => {
    expect(MAX_WEBHOOK_BODY_BYTES).toBe(1024 * 1024);
    expect(maxBodyBytes("/webhooks/resend")).toBe(MAX_WEBHOOK_BODY_BYTES);
    expect(maxBodyBytes("/webhooks/ses?x=1")).toBe(MAX_WEBHOOK_BODY_BYTES);
    expect(maxBodyBytes("/?index")).toBe(MAX_DRAIN_BYTES);
    expect(maxBodyBytes("/webhooksx")).toBe(MAX_DRAIN_BYTES);
  });
});

describe("isOneClickUnsubscribe", () => {
  const token = "3f1e2d4c-5b6a-4789-8abc-def012345678";
  it.each([
    `/unsubscribe?token=${token}`,
    `/unsubscribe?token=${token.toUpperCase()}`,
    `/unsubscribe?a=1&token=${token}`,
  ])("%s: the body may be any size", (target) => expect(isOneClickUnsubscribe(target)).toBe(true));
  it.each([
    "/unsubscribe",
    "/unsubscribe?token=garbage",
    "/unsubscribe?token=",
    `/unsubscribe/x?token=${token}`,
    `/unsubscribe.data?token=${token}`,
    `/?token=${token}`,
    `/unsubscribe?tok=${token}`,
  ])("%s: the usual bound", (target) => expect(isOneClickUnsubscribe(target)).toBe(false));
});
