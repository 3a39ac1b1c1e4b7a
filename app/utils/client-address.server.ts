import { isIPv4, isIPv6 } from "node:net";
import type { AppLoadContext } from "@remix-run/node";
import { logField } from "~/utils/log.server";

/**
 * The visitor's key for the rate limits and the log, from server/index.mjs's load context ("unknown" if a different
 * server runs the build): one key per visitor however the address is written (see visitorKey).
 */
export function clientAddressOf(context: AppLoadContext): string {
  const address: unknown = context.clientAddress;
  return typeof address === "string" && address !== "" ? visitorKey(address) : "unknown";
}

/** A visitor key as a log line may quote it: an address as it is, anything else (a forged header) escaped. */
export function logClient(client: string): string {
  return /^[0-9A-Fa-f.:/]+$/.test(client) ? client : logField(client, 100);
}

/**
 * One key per visitor, however their address is written: a port and brackets stripped (`198.51.100.7:5555`,
 * `[2001:db8::1]:443`), an IPv4 address mapped into IPv6 unmapped (`::ffff:198.51.100.7`, as a dual-stack listener
 * sees IPv4 clients), and an IPv6 address reduced to its /64, the block one subscriber line gets: within it a client
 * can take a new address at will. Anything that is not an address is kept as it is (capped), so it still counts.
 */
export function visitorKey(address: string): string {
  const value = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  const bare = bracketed ? bracketed[1]! : (/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value)?.[1] ?? value);
  const zoneless = bare.replace(/%.*$/, "");
  if (isIPv4(zoneless)) return zoneless;
  if (!isIPv6(zoneless)) return value.slice(0, 100);
  const groups = expandIPv6(zoneless);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function expandIPv6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
