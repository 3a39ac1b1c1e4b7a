import { z } from "zod";
import { EMAIL_INVALID_MESSAGE, EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE } from "~/newsletter/messages";

/** The form field a person never sees: only bots fill it in. */
export const HONEYPOT_FIELD = "website";

/**
 * The sign-up form. Conform turns an empty field into `undefined` before zod sees it, so a missing field, an empty one
 * and a repeated one (an array) all get the same message a malformed address gets: to the visitor they are all "not
 * a valid address". Checks run in the spec's order (valid address, then length), so the first issue is the format.
 */
export const subscribeSchema = z.object({
  email: z
    .string({ required_error: EMAIL_INVALID_MESSAGE, invalid_type_error: EMAIL_INVALID_MESSAGE })
    .trim()
    .email(EMAIL_INVALID_MESSAGE)
    .max(EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE),
});
