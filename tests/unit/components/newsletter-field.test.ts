import { describe, expect, it } from "vitest";
import { emailField } from "~/components/newsletter-field";

describe("emailField", () => {
  it("has Conform's ids and nothing else before any answer", () => {
    expect(emailField("newsletter-dialog", null)).toEqual({
      id: "newsletter-dialog-email",
      name: "email",
      errorId: "newsletter-dialog-email-error",
      initialValue: undefined,
      error: undefined,
    });
  });

  it("gives back what was sent and the first message of a refusal", () => {
    const field = emailField("newsletter-dialog", {
      outcome: "invalid",
      reply: {
        status: "error",
        initialValue: { email: "not-an-address" },
        error: { email: ["Please enter a valid email address", "second"] },
      },
    });
    expect(field.initialValue).toBe("not-an-address");
    expect(field.error).toBe("Please enter a valid email address");
  });

  it("is empty after a success (the reply resets the form)", () => {
    const field = emailField("newsletter-dialog", { outcome: "subscribed", reply: { initialValue: null } });
    expect(field.initialValue).toBeUndefined();
    expect(field.error).toBeUndefined();
  });

  it("ignores a value that is not one string (a hidden or repeated field)", () => {
    const field = emailField("newsletter-dialog", {
      outcome: "failed",
      reply: { initialValue: { email: ["a", "b"] }, error: {} },
    });
    expect(field.initialValue).toBeUndefined();
  });
});
