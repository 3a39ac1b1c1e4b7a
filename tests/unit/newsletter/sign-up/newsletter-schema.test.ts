import { parseWithZod } from "@conform-to/zod";
import { describe, expect, it } from "vitest";
import {
  ALREADY_SUBSCRIBED_TOAST,
  EMAIL_INVALID_MESSAGE,
  EMAIL_TOO_LONG_MESSAGE,
  invalidEmailToast,
  SOMETHING_WENT_WRONG_TOAST,
  SUBSCRIBED_TOAST,
} from "~/newsletter/sign-up/messages";
import { subscribeSchema } from "~/newsletter/sign-up/schema.server";

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

  const INVALID = EMAIL_INVALID_MESSAGE;
  const TOO_LONG = EMAIL_TOO_LONG_MESSAGE;
  // Each address and the first message the visitor reads ('Invalid email' / this), or null when it is taken. The rule
  // refuses what either an RFC 5322 dot-atom or the browser's own `type=email` refuses, and a local part over RFC
  // 5321's 64 characters; an address over 255 characters is "too long" whenever it is otherwise well-formed.
  const table: [label: string, email: string, first: string | null][] = [
    ["the issue's doubled dot", "john..doe@example.com", INVALID],
    ["the issue's 262 characters", `${"a".repeat(250)}@example.com`, TOO_LONG],
    ["256 characters with a local part over 64", `${"a".repeat(200)}@${"b".repeat(51)}.com`, TOO_LONG],
    ["a 65-character local part", `${"a".repeat(65)}@example.com`, INVALID],
    ["a 100-character local part", `${"a".repeat(100)}@example.com`, INVALID],
    ["a 64-character local part", `${"a".repeat(64)}@example.com`, null],
    // The browser takes these (its rule loosens RFC 5322); no mail system delivers to them.
    ["a leading dot in the local part", ".a@x.co", INVALID],
    ["a trailing dot in the local part", "a.@x.co", INVALID],
    ["a doubled dot in the local part", "a..b@x.co", INVALID],
    // The browser refuses these.
    ["a 64-character domain label", `ada@${"b".repeat(64)}.com`, INVALID],
    ["a 70-character domain label", `ada@${"b".repeat(70)}.com`, INVALID],
    ["a label ending in a hyphen", "a@x-.co", INVALID],
    ["a label starting with a hyphen", "a@-x.co", INVALID],
    ["an empty label", "a@x..co", INVALID],
    ["an underscore in the domain", "a@x_y.co", INVALID],
    ["a hyphen last in the top-level label", "a@x.co-", INVALID],
    ["a dot last in the domain", "a@x.co.", INVALID],
    ["an empty local part", "@x.co", INVALID],
    ...[...'()<>[]:;,\\" '].map((char): [string, string, string] => [
      `${JSON.stringify(char)} in the local part`,
      `a${char}b@x.co`,
      INVALID,
    ]),
    ["a letter outside ASCII in the local part", "jos\u00e9@x.co", INVALID],
    // The browser sends an IDN domain as punycode; only a script sends the Unicode form.
    ["an IDN domain as the browser sends it (punycode)", "ada@xn--mnchen-3ya.de", null],
    ["an IDN domain in Unicode", "a@b\u00fccher.de", INVALID],
    // The browser takes it (an intranet name); on the internet it gets no mail: a refusal beyond the browser's.
    ["no dot in the domain", "a@b", INVALID],
    ["no @", "ada.example.com", INVALID],
    ["a space inside", "ada lovelace@example.com", INVALID],
    ["two @", "ada@lovelace@example.com", INVALID],
    ["only spaces", "   ", INVALID],
    ["a 63-character domain label", `ada@${"b".repeat(63)}.com`, null],
    ["inner hyphens and digits in labels", "ada@mail-1.ex-ample2.co.uk", null],
    ["plus addressing and dots between atoms", "ada.lovelace+news@example.com", null],
    ["every other character the browser allows in the local part", "!#$%&'*/=?^_`{|}~-@example.com", null],
    ["a one-character local part and labels", "a@b.c", null],
    ["an all-digit top-level label", "ada@example.123", null],
    ["a punycode top-level label", "ada@example.xn--p1ai", null],
    ["all-digit and punycode labels inside the domain", "ada@123.xn--bcher-kva.example", null],
  ];

  it.each(table)("%s: %j gets %s", (_label, email, first) => {
    const issues = messages([["email", email]]);
    if (first === null) {
      expect(issues).toEqual([]);
      expect(submit([["email", email]]).status).toBe("success");
    } else {
      expect(issues[0]).toBe(first);
      expect(invalidEmailToast(issues[0]!)).toMatchObject({ message: "Invalid email", description: first });
    }
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
