import { z } from "zod";
import { EMAIL_INVALID_MESSAGE, EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE } from "~/newsletter/messages";

/** The form field a person never sees: only bots fill it in. */
export const HONEYPOT_FIELD = "website";

// One label of a domain, as the browser's own `type=email` check takes it (the WHATWG "valid e-mail address"): 1 to 63
// letters, digits and hyphens, neither first nor last a hyphen. The last label is letters only, as zod's rule asks.
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const TOP_LABEL = "[A-Za-z]{2,63}";
// The local part: at most 64 characters (RFC 5321), no dot first, last or twice in a row (zod's rule; the browser's
// allows more characters, so nothing the browser refuses gets through).
const LOCAL_PART = "(?!\\.)(?!.*\\.\\.)[A-Za-z0-9_'+.-]{0,63}[A-Za-z0-9_+-]";

/** An address both the browser's `type=email` and a mail server would take (lengths in characters). */
export const EMAIL_ADDRESS = new RegExp(`^${LOCAL_PART}@(?:${LABEL}\\.)+${TOP_LABEL}$`);

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
