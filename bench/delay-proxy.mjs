// A TCP proxy on loopback that holds every chunk of data for a fixed time in each direction: `npm run bench` puts it
// in front of the production server so that Lighthouse sees a real round trip (2 × delay) rather than loopback's
// ~0 ms. Usage: node bench/delay-proxy.mjs <target port> <delay ms>; prints "delay proxy ready at <url>".
import { connect, createServer } from "node:net";

const targetPort = Number(process.argv[2]);
const delayMs = Number(process.argv[3] ?? 20);
if (!Number.isInteger(targetPort) || targetPort < 1 || !(delayMs >= 0)) {
  console.error("usage: node bench/delay-proxy.mjs <target port> <delay ms>");
  process.exit(2);
}

/**
 * Copies `from` to `to`, each chunk `delayMs` later. Timers of equal delay fire in the order they were set, so the
 * bytes keep their order; the end is forwarded after the last chunk.
 * @param {import("node:net").Socket} from @param {import("node:net").Socket} to
 */
function delayed(from, to) {
  from.on("data", (chunk) => setTimeout(() => to.destroyed || to.write(chunk), delayMs));
  from.on("end", () => setTimeout(() => to.destroyed || to.end(), delayMs));
  from.on("error", () => to.destroy());
  from.on("close", () => setTimeout(() => to.destroy(), delayMs + 1));
}

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: "127.0.0.1", port: targetPort });
  upstream.setNoDelay(true);
  delayed(client, upstream);
  delayed(upstream, client);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (typeof address === "object" && address) console.log(`delay proxy ready at http://127.0.0.1:${address.port}`);
});
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) process.on(signal, () => process.exit(0));
