// An SPF record (RFC 7208 section 4.6) as terms: pure, so every shape of record is unit tested. A term that is not
// in the grammar makes the whole record a permerror, as receivers treat it.

export type Qualifier = "+" | "-" | "~" | "?";

export type Mechanism =
  | { kind: "all" }
  | { kind: "include" | "exists"; domain: string }
  | { kind: "a" | "mx"; domain?: string; cidr4: number; cidr6: number }
  | { kind: "ptr"; domain?: string }
  | { kind: "ip4" | "ip6"; address: string; prefix: number };

export interface Directive {
  qualifier: Qualifier;
  mechanism: Mechanism;
  /** The term as written, for the report. */
  text: string;
}

export interface SpfRecord {
  directives: Directive[];
  redirect?: string;
}

export type SpfParse = { record: SpfRecord } | { error: string };

/** Whether a TXT record is an SPF record: `v=spf1` alone or followed by a space (case-insensitive). */
export const isSpfRecord = (txt: string): boolean => /^v=spf1(?: |$)/i.test(txt.trim());

const DOMAIN_SPEC = /^[\x21-\x7e]+$/;
const CIDR = /^(.*?)(?:\/(\d{1,2}))?(?:\/\/(\d{1,3}))?$/;

function prefix(text: string | undefined, max: number, fallback: number): number | null {
  if (text === undefined) return fallback;
  const value = Number(text);
  return Number.isInteger(value) && value >= 0 && value <= max && !/^0\d/.test(text) ? value : null;
}

function parseMechanism(name: string, rest: string): Mechanism | string {
  const argument = rest.startsWith(":") ? rest.slice(1) : rest;
  switch (name) {
    case "all":
      return rest === "" ? { kind: "all" } : "`all` takes no argument";
    case "include":
    case "exists":
      if (!rest.startsWith(":") || !DOMAIN_SPEC.test(argument)) return `\`${name}\` needs a domain (${name}:domain)`;
      return { kind: name, domain: argument };
    case "a":
    case "mx": {
      if (rest !== "" && !rest.startsWith(":") && !rest.startsWith("/")) return `\`${name}${rest}\` is not a term`;
      const [, domain, v4, v6] = CIDR.exec(rest.startsWith(":") ? argument : rest) ?? [];
      const cidr4 = prefix(v4, 32, 32);
      const cidr6 = prefix(v6, 128, 128);
      if (cidr4 === null || cidr6 === null) return `\`${name}${rest}\` has a prefix length out of range`;
      if (rest.startsWith(":") && (!domain || !DOMAIN_SPEC.test(domain))) return `\`${name}:\` needs a domain`;
      return { kind: name, ...(domain ? { domain } : {}), cidr4, cidr6 };
    }
    case "ptr":
      return rest === "" ? { kind: "ptr" } : { kind: "ptr", domain: argument };
    case "ip4":
    case "ip6": {
      const [address = "", length] = argument.split("/", 2);
      const max = name === "ip4" ? 32 : 128;
      const bits = prefix(length, max, max);
      const shape = name === "ip4" ? /^\d{1,3}(?:\.\d{1,3}){3}$/ : /^[0-9a-f:.]+$/i;
      if (!rest.startsWith(":") || !shape.test(address) || bits === null) return `\`${name}${rest}\` is not an address`;
      if (name === "ip4" && address.split(".").some((part) => Number(part) > 255))
        return `\`ip4${rest}\` is not an address`;
      return { kind: name, address, prefix: bits };
    }
    default:
      return `\`${name}\` is not an SPF mechanism`;
  }
}

/** The terms of a record already known to be SPF (isSpfRecord), or the reason receivers will call it a permerror. */
export function parseSpf(txt: string): SpfParse {
  const terms = txt.trim().split(/ +/).slice(1);
  const directives: Directive[] = [];
  let redirect: string | undefined;
  for (const term of terms) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      const [, name = "", value = ""] = modifier;
      if (name.toLowerCase() === "redirect") {
        if (redirect !== undefined) return { error: "the record has two `redirect=` modifiers" };
        if (!DOMAIN_SPEC.test(value)) return { error: "`redirect=` needs a domain" };
        redirect = value;
      }
      // exp= and unknown modifiers change nothing about who may send (section 6).
      continue;
    }
    const match = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/i.exec(term);
    if (!match) return { error: `\`${term}\` is not an SPF term` };
    const [, qualifier = "", name = "", rest = ""] = match;
    const mechanism = parseMechanism(name.toLowerCase(), rest);
    if (typeof mechanism === "string") return { error: mechanism };
    directives.push({ qualifier: (qualifier || "+") as Qualifier, mechanism, text: term });
  }
  return { record: { directives, ...(redirect !== undefined ? { redirect } : {}) } };
}

export interface MacroContext {
  /** The sender (MAIL FROM) address, local@domain. */
  sender: string;
  /** The domain being checked now (changes along include and redirect). */
  domain: string;
  ip: string;
  helo: string;
}

function macroLetter(letter: string, context: MacroContext): string | null {
  const at = context.sender.lastIndexOf("@");
  switch (letter.toLowerCase()) {
    case "s":
      return context.sender;
    case "l":
      return context.sender.slice(0, at) || "postmaster";
    case "o":
      return context.sender.slice(at + 1);
    case "d":
      return context.domain;
    case "h":
      return context.helo;
    case "v":
      return context.ip.includes(":") ? "ip6" : "in-addr";
    case "i":
      return context.ip.includes(":") ? ipv6Nibbles(context.ip) : context.ip;
    case "p":
      // Validated PTR names need reverse lookups the check does not make: RFC 7208 says "unknown" then.
      return "unknown";
    default:
      return null;
  }
}

/** The dotted nibbles of an IPv6 address (section 7.3: `%{i}` for ip6). */
export function ipv6Nibbles(ip: string): string {
  const [head = "", tail] = ip.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  const missing = 8 - groups(head).length - groups(tail ?? "").length;
  const all = [...groups(head), ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...groups(tail ?? "")];
  return all
    .map((group) => group.padStart(4, "0"))
    .join("")
    .split("")
    .join(".");
}

/** Expands the macros of a domain-spec (section 7); null when one is malformed (a permerror). */
export function expandMacros(spec: string, context: MacroContext): string | null {
  let out = "";
  for (let index = 0; index < spec.length; index += 1) {
    const char = spec[index];
    if (char !== "%") {
      out += char;
      continue;
    }
    const next = spec[index + 1];
    if (next === "%") out += "%";
    else if (next === "_") out += " ";
    else if (next === "-") out += "%20";
    else if (next === "{") {
      const end = spec.indexOf("}", index);
      const body = /^([a-z])(\d*)(r?)([.\-+,/_=]*)$/i.exec(spec.slice(index + 2, end));
      if (end < 0 || !body) return null;
      const [, letter = "", digits, reverse, delimiters] = body;
      const value = macroLetter(letter, context);
      if (value === null) return null;
      let parts = value.split(new RegExp(`[${(delimiters || ".").replace(/[-\\\]]/g, "\\$&")}]`));
      if (reverse) parts = parts.reverse();
      if (digits) parts = parts.slice(-Math.max(1, Number(digits)));
      out += parts.join(".");
      index = end - 1;
    } else return null;
    index += 1;
  }
  return out;
}
