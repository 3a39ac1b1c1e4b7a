// Starting the app as `npm start` runs it (server/index.mjs on the production build), on a free loopback port.
import { randomBytes } from "node:crypto";
import { answers, freePort, startProcess, tempDir } from "./processes.mjs";

/**
 * Starts the production server with a fresh data folder and session secret, and waits until it answers.
 * @param {Record<string, string>} env Supabase settings and any other variable for the app.
 */
export async function startProductionServer(env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await startProcess(
    "server",
    process.execPath,
    ["server/index.mjs"],
    {
      PATH: process.env.PATH,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: tempDir("portfolio-bench-data-"),
      SESSION_SECRET: randomBytes(32).toString("hex"),
      SUBSCRIBE_RATE_LIMIT_PER_MINUTE: "0",
      ...env,
    },
    () => answers(`${url}/robots.txt`),
  );
  return { ...app, url };
}
