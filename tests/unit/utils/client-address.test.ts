import { describe, expect, it } from "vitest";
import { visitorKey } from "~/utils/client-address.server";

describe("visitorKey", () => {
  it.each([
    "198.51.100.7",
    "198.51.100.7:5555",
    "::ffff:198.51.100.7",
    "[198.51.100.7]",
    "::FFFF:c633:6407",
    " 198.51.100.7 ",
  ])("reads %j as the IPv4 visitor 198.51.100.7", (address) => expect(visitorKey(address)).toBe("198.51.100.7"));

  it.each([
    "2001:db8:1:2::1",
    "2001:db8:1:2:ffff:ffff:ffff:ffff",
    "[2001:db8:1:2::3]:443",
    "2001:0db8:0001:0002::9",
    "fe80::1%eth0",
  ])("keys %j by its /64", (address) => expect(visitorKey(address)).toMatch(/^[0-9a-f:]+::\/64$/));

  it("puts one /64 under one key and the next /64 under another", () => {
    expect(visitorKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(visitorKey("[2001:db8:1:2:aaaa::7]:8080")).toBe("2001:db8:1:2::/64");
    expect(visitorKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(visitorKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keeps what is not an address as it is, capped", () => {
    expect(visitorKey("unknown")).toBe("unknown");
    expect(visitorKey("x".repeat(500))).toHaveLength(100);
  });
});
