// Records, in package-lock.json, the optional platform packages (rollup, Tailwind's oxide, ...) that the registry
// reachable from our machines does not serve. Without their entries `npm ci` refuses the lock file ("Missing: ... from
// lock file"), here and in `docker build` against the public registry alike. Each entry carries only what npm needs to
// skip it on another platform (version, os, cpu, libc, optional); on a platform that needs it npm fetches it as usual.
// Run it after `npm install` changes the lock file: `node scripts/lockfile-platforms.mjs`.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const lockPath = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), "package-lock.json");
/** @typedef {{ version?: string, dev?: boolean, devOptional?: boolean, optional?: boolean, os?: string[], cpu?: string[], libc?: string[], optionalDependencies?: Record<string, string> }} LockEntry */
/** @type {{ packages: Record<string, LockEntry> }} */
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const OPERATING_SYSTEMS = [
  "aix",
  "android",
  "darwin",
  "freebsd",
  "linux",
  "netbsd",
  "openbsd",
  "openharmony",
  "sunos",
  "win32",
];

/**
 * Platform fields from a package name such as `@rollup/rollup-linux-arm-musleabihf` or `lightningcss-win32-x64-msvc`.
 * @param {string} name
 * @returns {{ os?: string[], cpu: string[], libc?: string[] }}
 */
function platformOf(name) {
  const parts = (name.split("/").pop() ?? name).split("-");
  const osIndex = parts.findIndex((part) => OPERATING_SYSTEMS.includes(part));
  if (osIndex === -1) {
    const wasm = parts.find((part) => part.startsWith("wasm"));
    if (wasm) return { cpu: [wasm] };
    throw new Error(`cannot tell the platform of ${name}`);
  }
  const os = parts[osIndex] ?? "";
  const cpu = parts[osIndex + 1];
  const abi = parts[osIndex + 2] ?? "";
  if (!cpu) throw new Error(`cannot tell the cpu of ${name}`);
  const libc =
    os !== "linux" ? undefined : abi.startsWith("musl") ? "musl" : abi.startsWith("gnu") ? "glibc" : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    // npm resolves a dependency from the nearest node_modules upwards: nested first, then each parent, then the top.
    const candidates = [];
    for (let dir = location; ;) {
      candidates.push(`${dir ? `${dir}/` : ""}node_modules/${name}`);
      if (!dir) break;
      const cut = dir.lastIndexOf("/node_modules/");
      dir = cut === -1 ? "" : dir.slice(0, cut);
    }
    if (candidates.some((candidate) => packages[candidate])) continue;
    const top = `node_modules/${name}`;
    const { os, cpu, libc } = platformOf(name);
    packages[top] = {
      version,
      cpu,
      ...(entry.dev ? { dev: true } : entry.devOptional ? { devOptional: true } : {}),
      ...(libc ? { libc } : {}),
      optional: true,
      ...(os ? { os } : {}),
    };
    added += 1;
  }
}

// npm's own order: the root entry first, then by path.
const [root, ...rest] = Object.entries(packages);
lock.packages = Object.fromEntries([...(root ? [root] : []), ...rest.sort(([a], [b]) => a.localeCompare(b, "en"))]);
writeFileSync(lockPath, JSON.stringify(lock, null, 2) + "\n");
console.log(`package-lock.json: ${added} optional platform ${added === 1 ? "entry" : "entries"} added`);
