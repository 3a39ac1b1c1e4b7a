// Run by `npm run dev` before the compiler starts: when the server's port is taken, one clear line and exit 1, instead
// of `remix dev` watching and rebuilding for a server that could never listen.
import { existsSync } from "node:fs";
import net from "node:net";

// The same settings as the server (server/index.mjs): a local .env fills in what the environment leaves unset.
if (existsSync(".env")) process.loadEnvFile(".env");
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || "0.0.0.0";

// `remix dev` takes the first free port from 3001 to 3100 for its live reload before the app starts: the app on 3001
// would find it taken.
if (port === 3001) {
  console.error(
    "npm run dev: port 3001 is the one remix dev takes for its live reload: set another PORT (PORT=3200 npm run dev).",
  );
  process.exit(1);
}

const probe = net.createServer();
probe.once("error", (/** @type {NodeJS.ErrnoException} */ error) => {
  const why = error.code === "EADDRINUSE" ? "is in use" : `cannot be used (${error.code ?? error.message})`;
  console.error(
    `npm run dev: port ${port} on ${host} ${why}: stop what listens there, or set another PORT (PORT=3200 npm run dev).`,
  );
  process.exit(1);
});
probe.listen(port, host, () => probe.close());
