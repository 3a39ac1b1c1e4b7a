import { describe, expect, it } from "vitest";
import { mailboxKey } from "~/newsletter/sign-up/mailbox-key";

describe("mailboxKey: one key per mailbox, whatever the spelling", () => {
  it.each([
    ["Victim@Gmail.com", "victim@gmail.com"],
    ["v.i.c.t.i.m@gmail.com", "victim@gmail.com"],
    ["victim+1@gmail.com", "victim@gmail.com"],
    ["V.ictim+news.letter@GoogleMail.com", "victim@gmail.com"],
    ["victim@googlemail.com", "victim@gmail.com"],
    ["victim@gmail.com.", "victim@gmail.com"],
    ["  victim@gmail.com  ", "victim@gmail.com"],
  ])("folds %s to %s", (address, key) => {
    expect(mailboxKey(address)).toBe(key);
  });

  it("keeps dots outside Gmail, where they are part of the mailbox's name", () => {
    expect(mailboxKey("first.last@example.com")).toBe("first.last@example.com");
    expect(mailboxKey("firstlast@example.com")).not.toBe(mailboxKey("first.last@example.com"));
  });

  it("drops a +tag at any domain, and keeps a local part that starts with +", () => {
    expect(mailboxKey("Ada+Updates@Example.org")).toBe("ada@example.org");
    expect(mailboxKey("ada+a+b@example.org")).toBe("ada@example.org");
    expect(mailboxKey("+ada@example.org")).toBe("+ada@example.org");
  });

  it("tells different mailboxes apart", () => {
    const keys = ["ada@gmail.com", "ada@example.com", "adb@gmail.com", "ada@gmail.co"].map(mailboxKey);
    expect(new Set(keys).size).toBe(4);
  });

  it("uses the last @ (a quoted local part may hold one) and leaves a string without a domain as it is, lowercased", () => {
    expect(mailboxKey('"a@b"+x@Example.com')).toBe('"a@b"@example.com');
    expect(mailboxKey("NoDomain")).toBe("nodomain");
    expect(mailboxKey("...@gmail.com")).toBe("...@gmail.com");
  });

  it("never changes the address itself (a pure key)", () => {
    const address = "V.ictim+1@GoogleMail.com";
    mailboxKey(address);
    expect(address).toBe("V.ictim+1@GoogleMail.com");
  });
});
