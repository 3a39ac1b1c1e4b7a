// The freshness rule of `npm start` (server/build-freshness.mjs) on real files in a scratch folder, with their
// modification times set by hand.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { staleBuildReason } from "../../server/build-freshness.mjs";
import { tempDir } from "../support/production-server";

let root: string;
const NOW = Date.now() / 1000;

/** Writes `relative` in the scratch project, modified `ageSeconds` ago. */
function file(relative: string, ageSeconds: number) {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, "x");
  utimesSync(full, NOW - ageSeconds, NOW - ageSeconds);
}

beforeEach(() => {
  root = tempDir("portfolio-freshness-");
  for (const source of ["remix.config.js", "package.json", "app/root.tsx", "app/content/site.ts"]) file(source, 600);
  file("supabase/functions/_shared/latest-post/post.ts", 600);
  file("build/index.js", 300);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("staleBuildReason", () => {
  it("a build newer than every source is fresh", () => {
    expect(staleBuildReason(root)).toBeNull();
  });

  it("no build: build first", () => {
    rmSync(path.join(root, "build"), { recursive: true });
    expect(staleBuildReason(root)).toBe("No production build found");
  });

  it.each([
    "app/content/site.ts",
    "app/components/new-file.tsx",
    "remix.config.js",
    "package.json",
    "package-lock.json",
    "postcss.config.js",
    "tsconfig.json",
    "supabase/functions/_shared/latest-post/post.ts",
  ])("%s edited after the build: stale, naming it", (source) => {
    file(source, 10);
    expect(staleBuildReason(root)).toBe(`${source} changed after the last build`);
  });

  it("an update file, public/ or anything else newer is no reason: the server reads those as they are", () => {
    file("app/content/updates/2026-01-01-hello.md", 10);
    file("public/owner.webp", 10);
    file("public/build/root-ABC.js", 10);
    file("docs/weekly.md", 10);
    file("data/subscribers.sqlite", 10);
    expect(staleBuildReason(root)).toBeNull();
  });

  it("without sources (the Docker image: the build alone) nothing is checked", () => {
    rmSync(path.join(root, "remix.config.js"));
    file("app/content/updates/2026-01-01-hello.md", 10);
    file("package.json", 10);
    expect(staleBuildReason(root)).toBeNull();
  });
});
