/**
 * One production server for all the tests of a file (or of the describe block it is called in), with a DATA_DIR of
 * its own: started before them, stopped after them and its folder removed.
 */
import { afterAll, beforeAll } from "vitest";
import { serverHarness, type ServerProcess } from "./production-server";

export interface SharedServer {
  readonly server: ServerProcess;
  readonly dataDir: string;
}

export function serverForAll(prefix?: string): SharedServer {
  const harness = serverHarness(prefix);
  let started: SharedServer | undefined;
  const now = () => {
    if (!started) throw new Error("the shared server is there once its beforeAll has run");
    return started;
  };
  beforeAll(async () => {
    const dataDir = harness.scratchDir();
    started = { server: await harness.start({ DATA_DIR: dataDir }), dataDir };
  });
  afterAll(async () => {
    started = undefined;
    await harness.cleanup();
  });
  return {
    get server() {
      return now().server;
    },
    get dataDir() {
      return now().dataDir;
    },
  };
}
