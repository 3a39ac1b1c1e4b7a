import { describe, expect, it } from "vitest";
// The server's own module (plain JS next to server/index.mjs and server/page-cache.mjs).
import {
  isHomePageTarget,
  isTrackingOnly,
  isTrackingParameter,
  TRACKING_PARAMETERS,
} from "../../../server/tracking-query.mjs";

describe("isTrackingParameter", () => {
  it("knows the click ids and referrer tags of the list, in any case", () => {
    for (const name of ["fbclid", "gclid", "msclkid", "ref", "trk", "FBCLID", "Ref", "mc_cid", "igshid", "ttclid"]) {
      expect(isTrackingParameter(name), name).toBe(true);
    }
    expect(TRACKING_PARAMETERS.every((name) => name === name.toLowerCase())).toBe(true);
  });

  it("takes every utm_ parameter, not the bare prefix", () => {
    for (const name of [
      "utm_source",
      "utm_medium",
      "utm_campaign",
      "utm_term",
      "utm_content",
      "utm_id",
      "UTM_Source",
    ]) {
      expect(isTrackingParameter(name), name).toBe(true);
    }
    expect(isTrackingParameter("utm_")).toBe(false);
    expect(isTrackingParameter("utm")).toBe(false);
  });

  it("refuses what the app or Remix reads, and anything unknown", () => {
    for (const name of ["index", "_data", "x", "other", "q", "page", "email", "refresh", "fbclid2", "xfbclid", ""]) {
      expect(isTrackingParameter(name), name).toBe(false);
    }
  });
});

describe("isTrackingOnly", () => {
  it("is true when every parameter tracks, whatever the values, repeats or missing =", () => {
    expect(isTrackingOnly("utm_source=x&fbclid=y")).toBe(true);
    expect(isTrackingOnly("utm_source=twitter&utm_medium=social&utm_campaign=launch%20day")).toBe(true);
    expect(isTrackingOnly("ref=producthunt&ref=hn")).toBe(true);
    expect(isTrackingOnly("fbclid")).toBe(true);
    expect(isTrackingOnly("utm%5Fsource=x")).toBe(true);
    expect(isTrackingOnly("")).toBe(true);
  });

  it("is false as soon as one parameter does not track", () => {
    expect(isTrackingOnly("other=1")).toBe(false);
    expect(isTrackingOnly("utm_source=x&other=1")).toBe(false);
    expect(isTrackingOnly("utm_source=x&_data=root")).toBe(false);
    expect(isTrackingOnly("index")).toBe(false);
    expect(isTrackingOnly("=x")).toBe(false);
  });
});

describe("isHomePageTarget", () => {
  it("takes / alone or with a query string that only tracks", () => {
    expect(isHomePageTarget("/")).toBe(true);
    expect(isHomePageTarget("/?")).toBe(true);
    expect(isHomePageTarget("/?utm_source=x&fbclid=y")).toBe(true);
    expect(isHomePageTarget("/?trk=public_post&gclid=abc")).toBe(true);
  });

  it("leaves every other target to the app", () => {
    for (const target of [
      "/?other=1",
      "/?index",
      "/?utm_source=x&_data=routes%2F_index",
      "/?utm_source=x#y",
      "/unsubscribe?utm_source=x",
      "//?utm_source=x",
      "/index?fbclid=y",
      "",
      undefined,
    ]) {
      expect(isHomePageTarget(target), String(target)).toBe(false);
    }
  });
});
