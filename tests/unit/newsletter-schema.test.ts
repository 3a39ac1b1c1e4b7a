import { parseWithZod } from "@conform-to/zod";
import { describe, expect, it } from "vitest";
import {
  ALREADY_SUBSCRIBED_TOAST,
  EMAIL_INVALID_MESSAGE,
  EMAIL_TOO_LONG_MESSAGE,
  invalidEmailToast,
  SOMETHING_WENT_WRONG_TOAST,
  SUBSCRIBED_TOAST,
} from "~/newsletter/messages";
import { subscribeSchema } from "~/newsletter/schema.server";

/** A valid address of exactly `length` characters: a short local part, then labels of at most 63 characters. */
function ofLength(length: number): string {
  const head = "ada@";
  const tail = ".com";
  let middle = "";
  while (head.length + middle.length + tail.length < length) {
    const room = length - head.length - middle.length - tail.length - (middle ? 1 : 0);
    // Never leave room for less than one character after a dot.
    const label = "b".repeat(Math.max(1, Math.min(63, room === 64 ? 62 : room)));
    middle = middle ? `${middle}.${label}` : label;
  }
  return `${head}${middle}${tail}`;
}

/** Parses the way the action does: a real FormData through Conform. */
function submit(fields: [string, string][]) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return parseWithZod(form, { schema: subscribeSchema });
}

function messages(fields: [string, string][]) {
  const submission = submit(fields);
  return submission.status === "success" ? [] : (submission.error?.email ?? []);
}

describe("the newsletter schema", () => {
  it("accepts a plain address", () => {
    const submission = submit([["email", "ada@example.com"]]);
    expect(submission.status).toBe("success");
    expect(submission.status === "success" && submission.value).toEqual({ email: "ada@example.com" });
  });

  it("trims before checking, and the trimmed address is what gets stored", () => {
    const submission = submit([["email", "  \t ada@example.com \n "]]);
    expect(submission.status === "success" && submission.value.email).toBe("ada@example.com");
  });

  it("keeps the letter case (uniqueness is case-insensitive in the stores, not by rewriting the address)", () => {
    const submission = submit([["email", "Ada@Example.COM"]]);
    expect(submission.status === "success" && submission.value.email).toBe("Ada@Example.COM");
  });

  it.each([
    ["without an @", "ada.example.com"],
    // The browser takes it (an intranet name); on the internet it gets no mail: the one refusal beyond the browser's.
    ["without a dot in the domain", "a@b"],
    ["with a space inside", "ada lovelace@example.com"],
    ["with two @", "ada@lovelace@example.com"],
    ["of only spaces", "   "],
  ])("rejects an address %s with 'Please enter a valid email address'", (_label, email) => {
    expect(messages([["email", email]])).toEqual([EMAIL_INVALID_MESSAGE]);
  });

  // What the browser's own `type=email` refuses (the WHATWG rule), and a local part over RFC 5321's 64 characters:
  // only scripts send these, and no mail could be delivered to them.
  it.each([
    ["with a 65-character local part", `${"a".repeat(65)}@example.com`],
    ["with a 100-character local part", `${"a".repeat(100)}@example.com`],
    ["with a 64-character domain label", `ada@${"b".repeat(64)}.com`],
    ["with a 70-character domain label", `ada@${"b".repeat(70)}.com`],
    ["with a label ending in a hyphen", "a@x-.co"],
    ["with a label starting with a hyphen", "a@-x.co"],
    ["with an empty label", "a@x..co"],
    ["with an underscore in the domain", "a@x_y.co"],
    ["with a hyphen last in the top-level label", "a@x.co-"],
    ["with a dot last in the domain", "a@x.co."],
    ["with an empty local part", "@x.co"],
    ...[...'()<>[]:;,\\" '].map((char): [string, string] => [
      `with ${JSON.stringify(char)} in the local part`,
      `a${char}b@x.co`,
    ]),
    ["with a letter outside ASCII in the local part", "jos\u00e9@x.co"],
    ["with a letter outside ASCII in the domain", "a@b\u00fccher.de"],
  ])("rejects an address %s with 'Please enter a valid email address'", (_label, email) => {
    expect(messages([["email", email]])).toEqual([EMAIL_INVALID_MESSAGE]);
    expect(invalidEmailToast(messages([["email", email]])[0]!)).toMatchObject({ message: "Invalid email" });
  });

  it.each([
    ["a 64-character local part", `${"a".repeat(64)}@example.com`],
    ["a 63-character domain label", `ada@${"b".repeat(63)}.com`],
    ["inner hyphens and digits in labels", "ada@mail-1.ex-ample2.co.uk"],
    ["plus addressing and dots in the local part", "ada.lovelace+news@example.com"],
    ["every other character the browser allows in the local part", "!#$%&'*/=?^_`{|}~-@example.com"],
    ["dots first, last and twice in a row in the local part", ".ada..lovelace.@example.com"],
    ["a one-character local part and labels", "a@b.c"],
    ["an all-digit top-level label", "ada@example.123"],
    ["a punycode top-level label", "ada@example.xn--p1ai"],
    ["all-digit and punycode labels inside the domain", "ada@123.xn--bcher-kva.example"],
  ])("accepts %s", (_label, email) => {
    expect(submit([["email", email]]).status).toBe("success");
  });

  it("gives a missing field the same message as an invalid address", () => {
    expect(messages([["website", ""]])).toEqual([EMAIL_INVALID_MESSAGE]);
  });

  it("gives an empty field the same message as an invalid address", () => {
    expect(messages([["email", ""]])).toEqual([EMAIL_INVALID_MESSAGE]);
  });

  it("gives a repeated field (two values) the same message as an invalid address", () => {
    expect(
      messages([
        ["email", "a@example.com"],
        ["email", "b@example.com"],
      ]),
    ).toEqual([EMAIL_INVALID_MESSAGE]);
  });

  it("accepts exactly 255 characters", () => {
    expect(ofLength(255)).toHaveLength(255);
    expect(submit([["email", ofLength(255)]]).status).toBe("success");
  });

  it("rejects 256 characters with 'Email is too long'", () => {
    expect(ofLength(256)).toHaveLength(256);
    expect(messages([["email", ofLength(256)]])).toEqual([EMAIL_TOO_LONG_MESSAGE]);
  });

  it("counts the length after trimming", () => {
    expect(submit([["email", `  ${ofLength(255)}  `]]).status).toBe("success");
  });

  it("lists the format issue first when an address is both invalid and too long", () => {
    const long = `${"a".repeat(300)}@nodot`;
    expect(messages([["email", long]])).toEqual([EMAIL_INVALID_MESSAGE, EMAIL_TOO_LONG_MESSAGE]);
  });
});

describe("the toast texts", () => {
  it("are exactly these words", () => {
    expect(SUBSCRIBED_TOAST).toEqual({
      type: "success",
      message: "Successfully subscribed!",
      description: "Thanks for joining! You'll get updates on my 365-day challenge.",
    });
    expect(ALREADY_SUBSCRIBED_TOAST).toMatchObject({
      message: "Already subscribed",
      description: "This email is already subscribed to our newsletter.",
    });
    expect(SOMETHING_WENT_WRONG_TOAST).toMatchObject({
      type: "error",
      message: "Something went wrong",
      description: "Please try again later.",
    });
  });

  it("make 'Invalid email' a destructive toast carrying the first issue's message", () => {
    expect(invalidEmailToast(EMAIL_TOO_LONG_MESSAGE)).toEqual({
      type: "error",
      message: "Invalid email",
      description: "Email is too long",
    });
  });
});
