// The app as `npm start` runs it (server/index.mjs on the production build), started by the same harness as the tests.
import { startServer } from "../tests/support/server-process.mjs";
import { adopt } from "./processes.mjs";

/**
 * Starts the production server with a fresh data folder on a free loopback port, and waits until it listens.
 * @param {Record<string, string>} env Supabase settings and any other variable for the app.
 */
export async function startProductionServer(env) {
  const server = await startServer({ env });
  adopt(server.child);
  return server;
}
