import { z } from "zod";
import { EMAIL_INVALID_MESSAGE, EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE } from "~/newsletter/messages";

/** The form field a person never sees: only bots fill it in. */
export const HONEYPOT_FIELD = "website";

// The browser's own `type=email` rule (the WHATWG "valid e-mail address"): the server refuses whatever the browser
// refuses, and a person whose browser took an address is not turned away by the server, except for the two limits
// below. The local part: the characters that rule allows (dots anywhere: some real addresses have them), at most 64
// of them (RFC 5321: no mail is delivered past that).
const LOCAL_PART = "[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}";
// One label of the domain: 1 to 63 letters, digits and hyphens, neither first nor last a hyphen. Any label may be all
// digits or a punycode name (`xn--p1ai`), the last one too.
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/**
 * An address both the browser's `type=email` and a mail server would take (lengths in characters). The other limit
 * beyond the browser's: the domain needs a dot. The browser takes `ada@gmail` for intranets; on the internet no such
 * address gets mail, so a person who forgot the `.com` is asked again instead of being told they subscribed.
 */
export const EMAIL_ADDRESS = new RegExp(`^${LOCAL_PART}@${LABEL}(?:\\.${LABEL})+$`);

/**
 * The sign-up form. Conform turns an empty field into `undefined` before zod sees it, so a missing field, an empty one
 * and a repeated one (an array) all get the same message a malformed address gets: to the visitor they are all "not
 * a valid address". Checks run in the spec's order (valid address, then length), so the first issue is the format.
 */
export const subscribeSchema = z.object({
  email: z
    .string({ required_error: EMAIL_INVALID_MESSAGE, invalid_type_error: EMAIL_INVALID_MESSAGE })
    .trim()
    .regex(EMAIL_ADDRESS, EMAIL_INVALID_MESSAGE)
    .max(EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE),
});
