// The router packages as installed, read from node_modules: npm `overrides` hold them at the patched releases of the
// React Router 6 line that Remix 2 runs on, so that no lockfile change brings an affected version back (docs/security.md).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const installed = (name: string, from = ROOT) =>
  (JSON.parse(readFileSync(path.join(from, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;
const parts = (version: string) => version.split(/[.-]/).slice(0, 3).map(Number) as [number, number, number];
const atLeast = (version: string, floor: string) => {
  const [a, b] = [parts(version), parts(floor)];
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index]! > b[index]!;
  return true;
};

describe("React Router, as installed", () => {
  // GHSA-jjmj-jmhj-qwj2 (open redirect leading to XSS) affects react-router-dom 6.30.2 to 6.30.5.
  for (const [name, floor] of [
    ["react-router-dom", "6.30.6"],
    ["react-router", "6.30.6"],
    ["@remix-run/router", "1.23.4"],
  ] as const) {
    it(`${name} is ${floor} or later on its line, and no package carries an older copy`, () => {
      const version = installed(name);
      expect(atLeast(version, floor), `${name} ${version}`).toBe(true);
      expect(parts(version)[0]).toBe(parts(floor)[0]);
      // A nested copy under Remix's packages would be the one Remix imports.
      for (const owner of ["@remix-run/react", "@remix-run/server-runtime", "@remix-run/dev", "react-router-dom"]) {
        const nested = path.join(ROOT, "node_modules", owner);
        let version: string | undefined;
        try {
          version = installed(name, nested);
        } catch {
          version = undefined;
        }
        if (version !== undefined)
          expect(atLeast(version, floor), `${owner}/node_modules/${name} ${version}`).toBe(true);
      }
    });
  }

  it("package.json's overrides name the same versions", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      overrides: Record<string, string>;
    };
    expect(manifest.overrides).toMatchObject({
      "react-router-dom": installed("react-router-dom"),
      "react-router": installed("react-router"),
      "@remix-run/router": installed("@remix-run/router"),
    });
  });
});
