import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pruneProduction, runtimePackages } from "../../../scripts/prune-production.mjs";
import { ROOT, tempDir } from "../../support/production-server";

const realLock = () => JSON.parse(readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));

describe("runtimePackages, on the project's own lock", () => {
  const kept = runtimePackages(realLock());

  it("keeps the production dependencies and what they need", () => {
    for (const name of [
      "express",
      "@remix-run/node",
      "@remix-run/express",
      "react-dom",
      "zod",
      "web-encoding",
      // An optional dependency, and the native code resvg cannot render without on this platform.
      "@resvg/resvg-js-linux-x64-gnu",
    ]) {
      expect(kept.has(`node_modules/${name}`), name).toBe(true);
    }
  });

  it("leaves out the optional peers and the optional polyfill npm prune keeps, and every dev tool", () => {
    for (const name of ["typescript", "@opentelemetry/api", "@zxing/text-encoding", "@remix-run/dev", "vitest"]) {
      expect(kept.has(`node_modules/${name}`), name).toBe(false);
    }
  });
});

describe("pruneProduction, on a made-up project", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A project whose lock and node_modules hold exactly `packages` (one index.js each). */
  function project(packages: Record<string, object>) {
    dir = tempDir("portfolio-prune-");
    writeFileSync(path.join(dir, "package-lock.json"), JSON.stringify({ lockfileVersion: 3, packages }));
    for (const key of Object.keys(packages).filter(Boolean)) {
      mkdirSync(path.join(dir, key), { recursive: true });
      writeFileSync(path.join(dir, key, "index.js"), "");
    }
    mkdirSync(path.join(dir, "node_modules/.bin"), { recursive: true });
    return dir;
  }

  it("keeps dependencies, required peers and this platform's native build; drops the rest and their commands", () => {
    const root = project({
      "": { dependencies: { renderer: "1.0.0", framework: "1.0.0" }, devDependencies: { typescript: "5.0.0" } },
      "node_modules/renderer": {
        dependencies: { helper: "1.0.0" },
        optionalDependencies: { "renderer-linux-x64-gnu": "1.0.0", "renderer-darwin-arm64": "1.0.0", shim: "1.0.0" },
      },
      "node_modules/renderer-linux-x64-gnu": { optional: true, os: ["linux"], cpu: ["x64"], libc: ["glibc"] },
      "node_modules/shim": { optional: true },
      "node_modules/helper": {},
      "node_modules/framework": {
        peerDependencies: { helper: "1", typescript: "5", react: "18" },
        peerDependenciesMeta: { typescript: { optional: true } },
        dependencies: { nested: "2.0.0" },
      },
      "node_modules/framework/node_modules/nested": {},
      "node_modules/nested": { dev: true },
      "node_modules/react": {},
      "node_modules/typescript": { devOptional: true, bin: { tsc: "bin/tsc" } },
    });
    // The lock lists other platforms' builds npm never installed here.
    rmSync(path.join(root, "node_modules/renderer-darwin-arm64"), { recursive: true, force: true });
    symlinkSync("../typescript/index.js", path.join(root, "node_modules/.bin/tsc"));
    symlinkSync("../helper/index.js", path.join(root, "node_modules/.bin/helper"));

    const { removed } = pruneProduction(root);

    expect(removed.sort()).toEqual(["node_modules/nested", "node_modules/shim", "node_modules/typescript"]);
    for (const key of [
      "node_modules/renderer",
      "node_modules/renderer-linux-x64-gnu",
      "node_modules/helper",
      "node_modules/framework",
      "node_modules/framework/node_modules/nested",
      "node_modules/react",
    ]) {
      expect(existsSync(path.join(root, key)), key).toBe(true);
    }
    // Read, not existsSync: a dangling link would not "exist" either, yet still be there.
    expect(readdirSync(path.join(root, "node_modules/.bin"))).toEqual(["helper"]);
  });

  it("refuses a lock that lacks a required dependency rather than guess", () => {
    const root = project({
      "": { dependencies: { present: "1.0.0" } },
      "node_modules/present": { dependencies: { gone: "1" } },
    });
    expect(() => pruneProduction(root)).toThrow("package-lock.json has no gone for node_modules/present");
  });
});
