// The Dockerfile replay (tests/support/docker-image.ts) refuses what Buildah and Podman refuse: a COPY whose wildcard
// matches nothing. BuildKit lets it pass, which is how a Dockerfile that Podman cannot build once went unnoticed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDockerfile } from "../../support/dockerfile";
import { inStage, replayImage } from "../../support/docker-image";
import { tempDir } from "../../support/production-server";

let work: string;
let tree: string;

beforeEach(() => {
  work = tempDir("portfolio-replay-copy-");
  tree = path.join(work, "tree");
  mkdirSync(path.join(tree, "content"), { recursive: true });
  writeFileSync(path.join(tree, ".dockerignore"), "");
  writeFileSync(path.join(tree, "content/updates.md"), "# hello\n");
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const dockerfile = (copy: string) => parseDockerfile(`FROM node:24-slim AS only\nWORKDIR /app\n${copy}\n`);

describe("the replay's COPY", () => {
  it("copies what a wildcard matches", async () => {
    const { states } = await replayImage(work, tree, dockerfile("COPY content/*.md ./content/"));
    expect(readFileSync(inStage(states.get("only")!, "content/updates.md"), "utf8")).toBe("# hello\n");
  });

  it("refuses a wildcard that matches nothing, naming the line", async () => {
    await expect(replayImage(work, tree, dockerfile("COPY content/welcome.m[d] ./content/"))).rejects.toThrow(
      "Dockerfile line 3: COPY source content/welcome.m[d] matches nothing (Buildah and Podman refuse it)",
    );
  });

  it("refuses a plain source that does not exist", async () => {
    await expect(replayImage(work, tree, dockerfile("COPY content/welcome.md ./content/"))).rejects.toThrow(
      "Dockerfile line 3: COPY source content/welcome.md does not exist",
    );
  });
});
