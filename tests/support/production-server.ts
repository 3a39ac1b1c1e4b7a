/**
 * What tests need around the production server: the server itself comes from ./server-process.mjs (the one harness
 * the browser tests, the observatory and the bench use too); here, the helpers only tests use.
 */
import { rmSync } from "node:fs";
import { type ServerOptions, type ServerProcess, startServer, tempDir } from "./server-process.mjs";

export {
  freePort,
  launchServer,
  productionEnv,
  ROOT,
  startServer,
  startServerExpectingFailure,
  tempDir,
  TEST_SESSION_SECRET,
} from "./server-process.mjs";
export type { Exit, ServerOptions, ServerProcess } from "./server-process.mjs";

/** A child's environment: exactly these variables (no inheritance). Some package types declare NODE_ENV required. */
export const childEnv = (variables: Record<string, string>) => variables as NodeJS.ProcessEnv;

/**
 * The servers and scratch folders one test file starts, all stopped and removed by `cleanup()` (call it from
 * `afterEach` or `afterAll`): the one place tests start the production server from.
 */
export function serverHarness(prefix = "portfolio-test-") {
  const servers: ServerProcess[] = [];
  const dirs: string[] = [];
  return {
    /** Starts a server with these env overrides (a DATA_DIR of its own unless given). */
    async start(env: Record<string, string> = {}, options: Omit<ServerOptions, "env"> = {}) {
      const server = await startServer({ ...options, env });
      servers.push(server);
      return server;
    },
    /** A temporary folder removed at cleanup. */
    scratchDir() {
      const dir = tempDir(prefix);
      dirs.push(dir);
      return dir;
    },
    async cleanup() {
      await Promise.all(servers.splice(0).map((server) => server.stop()));
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `task` for every item with at most `concurrency` in flight; results in the items' order. */
export async function inPool<T, R>(items: T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
