/**
 * The mailbox an address reaches, as a key for limiting confirmation mails: `Ada+news@Example.com`, `ada@example.com`
 * and, at Gmail, `a.d.a@googlemail.com` all land in one inbox, so they count as one. Only the limits use it: the list
 * stores the address as the reader typed it, and the mail goes there.
 *
 * - letter case is folded everywhere (in practice no provider tells `Ada` from `ada`);
 * - a `+tag` is dropped from the local part (sub-addressing: Gmail, Outlook, Fastmail, iCloud, Proton and most
 *   self-hosted servers deliver `ada+anything` to `ada`); a local part that starts with `+` is kept whole;
 * - at gmail.com and googlemail.com (one service, two names) dots in the local part are ignored, and googlemail.com
 *   counts as gmail.com.
 * A trailing dot on the domain (`gmail.com.`, the DNS root) is the same domain.
 */

const GMAIL_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

export function mailboxKey(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0) return address;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1).replace(/\.+$/, "");
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    domain = "gmail.com";
    // A local part of dots only is no Gmail address; keep it as typed rather than make it empty.
    local = local.replace(/\./g, "") || local;
  }
  return `${local}@${domain}`;
}
