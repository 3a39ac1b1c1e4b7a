import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    environment: "node",
    // The Docker image is replayed once per run, by the first file that needs it (tests/support/shared-image.ts).
    globalSetup: ["tests/support/image-run.ts"],
    // The integration files wait on servers, relays and timers, so more than one runs at a time; but each also starts
    // production servers and the owner's commands, and four at a time on two cores starved the timed ones (a command
    // start took longer than a send's whole window): two at a time.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
