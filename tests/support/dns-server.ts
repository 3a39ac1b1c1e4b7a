/**
 * A real DNS server on loopback (dns2, UDP and TCP on the same port) serving a zone the test writes: A, AAAA, TXT
 * and MX records by name. A name not in the zone is NXDOMAIN; a known name without that type is an empty answer.
 * `silent` names are never answered (a lookup that times out), `failing` ones get SERVFAIL.
 */
import { once } from "node:events";
import { createTCPServer, createUDPServer, Packet } from "dns2";

export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  /** Each TXT record whole: the server splits it into 255-byte strings as DNS requires. */
  TXT?: string[];
  MX?: { exchange: string; priority: number }[];
}

export type Zone = Record<string, ZoneEntry>;

export interface TestDnsServer {
  /** `127.0.0.1:port`, for DNS_RESOLVER or Resolver#setServers. */
  readonly address: string;
  readonly port: number;
  zone: Zone;
  silent: Set<string>;
  failing: Set<string>;
  /** Every question asked so far, `name TYPE`. */
  readonly asked: string[];
  close(): Promise<void>;
}

const chunks = (text: string) => text.match(/[\s\S]{1,255}/g) ?? [""];

export async function startDnsServer(zone: Zone = {}): Promise<TestDnsServer> {
  const state = { zone, silent: new Set<string>(), failing: new Set<string>(), asked: [] as string[] };
  const handle: Parameters<typeof createUDPServer>[0] = (request, send) => {
    const question = request.questions[0];
    const response = Packet.createResponseFromRequest(request);
    if (!question) return void send(response);
    const name = question.name.toLowerCase().replace(/\.$/, "");
    const type = Packet.TYPE_NAME[question.type] ?? String(question.type);
    state.asked.push(`${name} ${type}`);
    if (state.silent.has(name)) return;
    if (state.failing.has(name)) {
      response.header.rcode = Packet.RCODE.SERVFAIL;
      return void send(response);
    }
    const entry = state.zone[name];
    if (!entry) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
      return void send(response);
    }
    const add = (record: Parameters<typeof Packet.createResourceFromQuestion>[1]) =>
      response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 60, ...record }));
    if (type === "A") for (const address of entry.A ?? []) add({ address });
    if (type === "AAAA") for (const address of entry.AAAA ?? []) add({ address });
    if (type === "TXT") for (const text of entry.TXT ?? []) add({ data: chunks(text) });
    if (type === "MX") for (const mx of entry.MX ?? []) add(mx);
    void send(response);
  };
  // UDP first on any free port, then TCP on the same one: a resolver retries a truncated answer over TCP there.
  const udp = createUDPServer(handle);
  await udp.listen(0, "127.0.0.1");
  const port = udp.address().port;
  const tcp = createTCPServer(handle);
  tcp.listen(port, "127.0.0.1");
  await once(tcp, "listening");
  return {
    address: `127.0.0.1:${port}`,
    port,
    get zone() {
      return state.zone;
    },
    set zone(value: Zone) {
      state.zone = value;
    },
    silent: state.silent,
    failing: state.failing,
    asked: state.asked,
    close: async () => {
      udp.close();
      await new Promise((resolve) => tcp.close(resolve));
    },
  };
}
