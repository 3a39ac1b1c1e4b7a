// What the domain check asks DNS, as an interface: the evaluators (SPF, DMARC, DKIM) take it, so they are unit tested
// over a table of records, and the command gives them node:dns behind it (dns.server.ts).

/** A name's records, or why there are none to say: an empty list is a real answer (no such name, or no such type). */
export type Lookup<T> = { records: T[] } | { error: string };

export interface MxRecord {
  exchange: string;
  priority: number;
}

export interface DnsLookups {
  /** TXT records, each one's strings already joined (a long record is several strings of up to 255 bytes). */
  txt(name: string): Promise<Lookup<string>>;
  a(name: string): Promise<Lookup<string>>;
  aaaa(name: string): Promise<Lookup<string>>;
  mx(name: string): Promise<Lookup<MxRecord>>;
}

export const failed = <T>(lookup: Lookup<T>): lookup is { error: string } => "error" in lookup;
