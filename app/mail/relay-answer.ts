/**
 * Whose fault a relay's refusal is, read from the answer itself (pure): RFC 3463's enhanced status code when the
 * relay gives one, the words of the relays whose account-wide refusals are known, and the command it answered.
 *
 * - "mailbox": about one reader's address or mailbox (X.1.x addressing but the sender's own, X.2.x mailbox but the
 *   message's length). Only this kind ever suppresses a reader or counts towards the soft-bounce rule.
 * - "relay": about the relay, our account, our sender or the message (X.3 mail system, X.4 routing, X.5 protocol,
 *   X.6 content, X.7 policy and authentication, X.1.7/X.1.8 the sender's address, X.2.3 and X.3.4 the message's
 *   size). It never suppresses anyone.
 * - "unknown": no enhanced code (or X.0.0): decided by where it came and by repetition (app/mail/breaker.server.ts).
 *
 * Some relay answers are about the whole sending whoever the reader: those `stop` the send at once, with what to fix.
 */

export type Fault = "mailbox" | "relay" | "unknown";

export interface EnhancedCode {
  cls: number;
  subject: number;
  detail: number;
}

/** The enhanced code right after the basic one (`550 5.1.1 …`, `550-5.1.1 …`), if the relay gave one. */
export function enhancedCodeOf(response: string): EnhancedCode | null {
  const found = /^\s*\d{3}[ -]([245])\.(\d{1,3})\.(\d{1,3})(?!\d)/.exec(response);
  if (!found) return null;
  return { cls: Number(found[1]), subject: Number(found[2]), detail: Number(found[3]) };
}

/** The fault an enhanced code names, by its subject and detail (RFC 3463, section 3). */
export function faultOfCode(code: EnhancedCode | null): Fault {
  if (!code || code.subject === 0) return "unknown";
  if (code.subject === 1) return code.detail === 7 || code.detail === 8 ? "relay" : "mailbox";
  if (code.subject === 2) return code.detail === 3 ? "relay" : "mailbox";
  return "relay";
}

/** An answer about the whole sending, whoever the reader, and what the owner does about it. */
interface AccountWide {
  test: (text: string, code: EnhancedCode | null) => boolean;
  fix: string;
}

const isCode = (code: EnhancedCode | null, subject: number, details: number[]) =>
  code !== null && code.subject === subject && details.includes(code.detail);

const ACCOUNT_WIDE: AccountWide[] = [
  {
    test: (text) => /relay(ing)? (access )?(denied|not permitted|not allowed)|not permitted to relay/i.test(text),
    fix:
      "the relay does not accept mail from this server for other domains: give SMTP_URL the relay's user and " +
      "password (smtp://user:password@host:587), or allow this server's address at the relay",
  },
  {
    test: (text) => /address is not verified|identities failed the check/i.test(text),
    fix:
      "Amazon SES is in its sandbox, where it sends only from and to verified addresses: ask AWS for production " +
      "access (Account dashboard, 'Request production access'), and verify the MAIL_FROM domain",
  },
  {
    test: (text) =>
      /quota (exceeded|reached)|daily (message|sending) (quota|limit)|sending (quota|limit) (exceeded|reached)/i.test(
        text,
      ) || /(account|sending) (is )?(suspended|disabled|paused)/i.test(text),
    fix:
      "the relay's account may send no more now (its daily quota is used up, or sending is suspended): wait for " +
      "the quota to reset or raise it in the relay's dashboard",
  },
  {
    test: (text, code) => isCode(code, 7, [23, 24, 25, 26, 27, 30]) || /\bdmarc\b|\bspf\b|\bdkim\b/i.test(text),
    fix:
      "the mail failed the sender's authentication (DKIM, SPF or DMARC): run `npm run newsletter -- check` and " +
      "publish what it says (docs/newsletter.md)",
  },
  {
    test: (text, code) =>
      isCode(code, 3, [4]) || isCode(code, 2, [3]) || /message (size|too (big|large))|size limit/i.test(text),
    fix: "the mail is larger than the relay accepts: make the update shorter (images are linked, never attached)",
  },
  {
    test: (_text, code) => isCode(code, 1, [7, 8]),
    fix: "the relay does not accept MAIL_FROM as the sender: verify that address or its domain at the relay",
  },
];

/** What to fix when the answer is about the whole sending, or null when it may be about one reader. */
export function accountWideFix(text: string): string | null {
  const code = enhancedCodeOf(text);
  // A code that names the reader's mailbox wins over words: "Mailbox quota exceeded" is one full inbox, not our quota.
  if (faultOfCode(code) === "mailbox") return null;
  return ACCOUNT_WIDE.find((rule) => rule.test(text, code))?.fix ?? null;
}

/** What to fix, in general words, when a refusal repeated for every reader shows it is the relay's. */
export const RELAY_FIX =
  "the relay refuses the sending, not the readers: read its words above, mend the relay's settings or SMTP_URL, " +
  "and send again";

/**
 * A short name of an answer's kind, for telling "the same way" apart: the basic code and the enhanced code's class
 * and subject (`550 5.1`), or the command when there is no enhanced code (`554 at RCPT TO`).
 */
export function answerKind(status: number, command: string, response: string): string {
  const code = enhancedCodeOf(response);
  return code ? `${status} ${code.cls}.${code.subject}` : `${status} at ${command || "the relay"}`;
}
