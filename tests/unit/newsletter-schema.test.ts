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

const DOMAIN = "@example.com";
const ofLength = (length: number) => `${"a".repeat(length - DOMAIN.length)}${DOMAIN}`;

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
    ["without a top-level domain", "a@b"],
    ["with a space inside", "ada lovelace@example.com"],
    ["with two @", "ada@lovelace@example.com"],
    ["of only spaces", "   "],
  ])("rejects an address %s with 'Please enter a valid email address'", (_label, email) => {
    expect(messages([["email", email]])).toEqual([EMAIL_INVALID_MESSAGE]);
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

describe("the toast texts (spec §8)", () => {
  it("are the spec's words", () => {
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
