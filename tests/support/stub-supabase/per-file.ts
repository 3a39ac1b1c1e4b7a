import { afterAll, beforeAll, beforeEach } from "vitest";
import { startStubSupabase, type StubSupabase } from "./stub";

/** One stand-in for the whole test file, its list emptied before each test; `started` receives it once it is up. */
export function stubSupabaseForFile(started: (stub: StubSupabase) => void) {
  let stub: StubSupabase | undefined;
  beforeAll(async () => {
    stub = await startStubSupabase();
    started(stub);
  }, 120_000); // PGlite's first start compiles its WebAssembly
  afterAll(async () => {
    await stub?.close();
  });
  beforeEach(async () => {
    await stub!.reset();
  });
}
