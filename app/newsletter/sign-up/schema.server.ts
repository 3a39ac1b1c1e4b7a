import { z } from "zod";
import { EMAIL_INVALID_MESSAGE, EMAIL_MAX_LENGTH, EMAIL_TOO_LONG_MESSAGE } from "~/newsletter/sign-up/messages";

/** The form field a person never sees: only bots fill it in. */
export const HONEYPOT_FIELD = "website";

// An address is taken when both a mail server and the browser's `type=email` would take it, so the rule is the
// intersection of the two. The local part is an RFC 5322 dot-atom: the characters the browser allows, but dots only
// between atoms (the browser also takes a leading, trailing or doubled dot, which no mail system delivers to).
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = `${ATOM}(?:\\.${ATOM})*`;
// One label of the domain: 1 to 63 letters, digits and hyphens, neither first nor last a hyphen (both rules agree).
// Any label may be all digits or a punycode name (`xn--p1ai`), the last one too.
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";

/**
 * A well-formed address, whatever its length. Beyond the browser's rule, the domain needs a dot: the browser takes
 * `ada@gmail` for intranets; on the internet no such address gets mail, so a person who forgot the `.com` is asked
 * again instead of being told they subscribed.
 */
export const EMAIL_ADDRESS = new RegExp(`^${LOCAL_PART}@${LABEL}(?:\\.${LABEL})+$`);

/** RFC 5321's limit on the local part: no mail is delivered past it. */
export const LOCAL_PART_MAX_LENGTH = 64;

/** The issues of an address, in the order the toast must tell them (its first one is what the visitor reads). */
export function emailIssues(email: string): string[] {
  const wellFormed = EMAIL_ADDRESS.test(email);
  const issues = wellFormed ? [] : [EMAIL_INVALID_MESSAGE];
  if (email.length > EMAIL_MAX_LENGTH) issues.push(EMAIL_TOO_LONG_MESSAGE);
  else if (wellFormed && email.lastIndexOf("@") > LOCAL_PART_MAX_LENGTH) issues.push(EMAIL_INVALID_MESSAGE);
  return issues;
}

/**
 * The sign-up form. Conform turns an empty field into `undefined` before zod sees it, so a missing field, an empty one
 * and a repeated one (an array) all get the same message a malformed address gets: to the visitor they are all "not
 * a valid address". The checks run in the spec's order and the toast shows the first issue: the format, then the
 * length, then the local part's limit, so an address that is simply too long is told so (the length is what a person
 * can act on), while a well-formed one of at most 255 characters with a local part over 64 is "not valid".
 */
export const subscribeSchema = z.object({
  email: z
    .string({ required_error: EMAIL_INVALID_MESSAGE, invalid_type_error: EMAIL_INVALID_MESSAGE })
    .trim()
    .superRefine((email, context) => {
      for (const message of emailIssues(email)) context.addIssue({ code: z.ZodIssueCode.custom, message });
    }),
});
