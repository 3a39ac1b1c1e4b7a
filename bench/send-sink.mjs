// A loopback SMTP server for the send benchmark that only counts: every accepted mail's arrival time, nothing parsed
// or kept (parsing would make the sink, not the sender, the bottleneck). Run as its own process so its work does not
// share an event loop with the benchmark's latency probe. Prints `ready <port>` and, on each line read from stdin,
// `count <n> <first ms> <last ms>` (arrival times, epoch ms) for the mails since the previous `reset`.
import { createInterface } from "node:readline";
import { SMTPServer } from "smtp-server";

/** @type {number[]} */
let times = [];
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  size: 1024 * 1024,
  onData(stream, _session, callback) {
    stream.on("data", () => {});
    stream.on("end", () => {
      times.push(performance.timeOrigin + performance.now());
      callback();
    });
  },
});
server.listen(0, "127.0.0.1", () => {
  const address = /** @type {import("node:net").AddressInfo} */ (server.server.address());
  process.stdout.write(`ready ${address.port}\n`);
});
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "reset") times = [];
  else process.stdout.write(`count ${times.length} ${times[0] ?? 0} ${times.at(-1) ?? 0}\n`);
});
