// The freshness rule of `npm start` (server/build-freshness.mjs) on real files in a scratch folder, with their
// modification times set by hand; the server bundles' lines are the ones Remix's compiler writes in each mode.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildMode, staleBuildReason } from "../../../server/build-freshness.mjs";
import { tempDir } from "../../support/production-server";

let root: string;
const NOW = Date.now() / 1000;

/** Writes `relative` in the scratch project, modified `ageSeconds` ago. */
function file(relative: string, ageSeconds: number, content = "x") {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
  utimesSync(full, NOW - ageSeconds, NOW - ageSeconds);
}

beforeEach(() => {
  root = tempDir("portfolio-freshness-");
  for (const source of ["remix.config.js", "package.json", "app/root.tsx", "app/content/site.ts"]) file(source, 600);
  file("supabase/functions/_shared/latest-post/post.ts", 600);
  file("build/index.js", 300, bundle("production"));
});

/** The line of a server bundle that carries its mode, as `remix build` (production) and `remix dev` write it. */
const bundle = (mode: string) =>
  `import { jsx } from "react/jsx-runtime";\nvar mode = "${mode}", assetsBuildDirectory = "public/build", future = {};\n`;
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

  it("a development build (what `npm run dev` leaves) is never served, however new", () => {
    file("build/index.js", 1, bundle("development"));
    expect(staleBuildReason(root)).toBe("build/index.js is a development build (`npm run dev` makes one)");
  });

  it("a bundle that does not say its mode counts as development when it renders with jsxDEV, else unknown", () => {
    file("build/index.js", 1, 'import { jsxDEV } from "react/jsx-dev-runtime";\n');
    expect(buildMode(path.join(root, "build/index.js"))).toBe("development");
    file("build/index.js", 1, "export const routes = {};\n");
    expect(staleBuildReason(root)).toBe("build/index.js does not say it is a production build");
  });

  it("without sources (the Docker image: the build alone) nothing is checked", () => {
    rmSync(path.join(root, "remix.config.js"));
    file("app/content/updates/2026-01-01-hello.md", 10);
    file("package.json", 10);
    expect(staleBuildReason(root)).toBeNull();
  });
});
