/**
 * The network a visitor key (app/utils/client-address.server.ts) belongs to, for the fair limits: an IPv4 address's
 * /24 and an IPv6 /64's /48, the blocks one provider's customer or one hosting tenant commonly holds whole, so that
 * taking a new address, or a new /64, within them changes nothing. Anything else (a key that is no address) is its
 * own network. Pure.
 */
export function networkKey(visitor: string): string {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(visitor);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  const v6 = /^([0-9a-f]{1,4}):([0-9a-f]{1,4}):([0-9a-f]{1,4}):[0-9a-f]{1,4}::\/64$/.exec(visitor);
  if (v6) return `${v6[1]}:${v6[2]}:${v6[3]}::/48`;
  return visitor;
}
