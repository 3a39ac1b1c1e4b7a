// The npm registry mirror our machines use serves no metadata for other platforms' native packages (e.g.
// @rollup/rollup-darwin-arm64), so `npm install` leaves them out of package-lock.json and `npm ci` then refuses the
// lock. This adds the missing optional, platform-specific entries (version, os, cpu, libc read off the name) so the
// lock is complete everywhere; npm skips them on other platforms and fetches them by version on a platform that needs
// them. Run it after every change to package-lock.json: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "freebsd", "linux", "win32", "openbsd", "netbsd", "sunos", "aix", "openharmony"];
const CPU = {
  arm64: "arm64",
  x64: "x64",
  arm: "arm",
  ia32: "ia32",
  loong64: "loong64",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x",
};

/** @param {string} name */
function platformOf(name) {
  const base = name.split("/").pop() ?? name;
  if (base.includes("wasm32")) return { cpu: ["wasm32"] };
  const parts = base.split("-");
  const os = OS.find((candidate) => parts.includes(candidate));
  const cpu = parts.map((part) => CPU[/** @type {keyof typeof CPU} */ (part)]).find(Boolean);
  if (!os || !cpu) return null;
  /** @type {{ os: string[]; cpu: string[]; libc?: string[] }} */
  const platform = { os: [os], cpu: [cpu] };
  if (os === "linux") platform.libc = [parts.some((part) => part.startsWith("musl")) ? "musl" : "glibc"];
  return platform;
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const prefix = location ? `${location}/node_modules/` : "node_modules/";
    // npm resolves a dependency next to its parent first, then hoisted at the top.
    if (packages[`${prefix}${name}`] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) continue;
    packages[`node_modules/${name}`] = { version, optional: true, ...platform };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n");
console.log(`complete-lockfile: added ${added} platform-specific optional entries`);
