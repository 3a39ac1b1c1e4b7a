// Vitest's global setup: one folder per test run where the Docker image is replayed once, by the first test file that
// needs it, and shared by the others (tests/support/shared-image.ts); removed when the run ends.
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { tempDir } from "./server-process.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    imageRunDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = tempDir("portfolio-image-run-");
  project.provide("imageRunDir", dir);
  // Half a gigabyte of stages, on a disk shared with other runs: never leave it behind.
  return () => rmSync(dir, { recursive: true, force: true });
}
