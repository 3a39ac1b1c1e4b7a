/**
 * An address safe for the log: the first character of the local part and the domain, e.g. `j***@example.com`.
 * Enough to follow one visitor's attempts through the log without storing who they are.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "***";
  const domain = email.slice(at + 1);
  return `${email.charAt(0)}***@${domain.length > 64 ? `${domain.slice(0, 64)}…` : domain}`;
}
