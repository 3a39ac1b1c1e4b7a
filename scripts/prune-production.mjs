// The runtime image's node_modules, production dependencies only. `npm prune --omit=dev` keeps every package the
// lock marks `devOptional` or `optional`: TypeScript (23 MB, `tsc`) because Remix's packages name it an optional
// peer, @opentelemetry/api because supabase-js does, @zxing/text-encoding because web-encoding lists it as an optional
// dependency for React Native. `--omit=optional` would also drop the native build of a production package for this
// platform (such a package cannot work without it), so this script decides itself, from package-lock.json:
// a production package's dependencies and required peers are kept; its optional peers are not (it must work without
// them, and npm installs them only for the dev tools); of its optional dependencies only platform builds (an entry
// with `os` or `cpu`) are kept, the native code the package needs here. Everything else in node_modules goes.
// Run after `npm prune --omit=dev`, in the Dockerfile's prod-deps stage: `node scripts/prune-production.mjs`.
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * @typedef {{ dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>;
 *   peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>;
 *   os?: string[]; cpu?: string[] }} LockEntry
 */

/**
 * Where Node would find `name` from the package at `from` (a lock key such as `node_modules/a/node_modules/b`):
 * its own node_modules, then each enclosing one up to the top.
 * @param {Record<string, LockEntry>} packages
 * @param {string} from
 * @param {string} name
 */
function resolve(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const enclosing = base.lastIndexOf("/node_modules/");
    base = enclosing === -1 ? "" : base.slice(0, enclosing);
  }
}

/**
 * The lock keys of every package the production dependencies need at run time (see the top of this file).
 * @param {{ packages: Record<string, LockEntry> }} lock
 * @returns {Set<string>}
 */
export function runtimePackages(lock) {
  const { packages } = lock;
  const root = packages[""] ?? {};
  /** @type {Set<string>} */
  const kept = new Set();
  /** @type {Array<[string, string, boolean]>} from, name, required */
  const queue = [
    ...Object.keys(root.dependencies ?? {}).map((name) => /** @type {[string, string, boolean]} */ (["", name, true])),
    ...Object.keys(root.optionalDependencies ?? {}).map(
      (name) => /** @type {[string, string, boolean]} */ (["", name, false]),
    ),
  ];
  while (queue.length > 0) {
    const [from, name, required] = /** @type {[string, string, boolean]} */ (queue.pop());
    const key = resolve(packages, from, name);
    if (!key) {
      if (required) throw new Error(`package-lock.json has no ${name} for ${from || "the project"}`);
      continue;
    }
    if (kept.has(key)) continue;
    kept.add(key);
    const entry = packages[key] ?? {};
    for (const dependency of Object.keys(entry.dependencies ?? {})) queue.push([key, dependency, true]);
    for (const peer of Object.keys(entry.peerDependencies ?? {})) {
      if (!entry.peerDependenciesMeta?.[peer]?.optional) queue.push([key, peer, true]);
    }
    for (const optional of Object.keys(entry.optionalDependencies ?? {})) {
      const target = resolve(packages, key, optional);
      const platformBuild = target !== undefined && Boolean(packages[target]?.os || packages[target]?.cpu);
      if (platformBuild) queue.push([key, optional, false]);
    }
  }
  return kept;
}

/** @param {string} file */
function sizeOf(file) {
  const stats = lstatSync(file);
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  for (const entry of readdirSync(file)) total += sizeOf(path.join(file, entry));
  return total;
}

/**
 * Every `.bin` directory under node_modules (the top one and those of nested node_modules).
 * @param {string} nodeModules
 * @returns {string[]}
 */
function binDirectories(nodeModules) {
  if (!existsSync(nodeModules)) return [];
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(nodeModules, entry.name);
    if (entry.name === ".bin") found.push(full);
    else if (entry.name.startsWith("@")) {
      for (const scoped of readdirSync(full)) found.push(...binDirectories(path.join(full, scoped, "node_modules")));
    } else found.push(...binDirectories(path.join(full, "node_modules")));
  }
  return found;
}

/**
 * Removes from `projectDir`'s node_modules every package its lock has that production does not need, the commands
 * they leave dangling in `.bin`, and their entries in npm's hidden lockfile.
 * @param {string} projectDir
 * @returns {{ removed: string[]; bytes: number }}
 */
export function pruneProduction(projectDir) {
  const lock = JSON.parse(readFileSync(path.join(projectDir, "package-lock.json"), "utf8"));
  const kept = runtimePackages(lock);
  /** @type {string[]} */
  const removed = [];
  let bytes = 0;
  for (const key of Object.keys(lock.packages)) {
    if (key === "" || kept.has(key)) continue;
    const location = path.join(projectDir, key);
    if (!existsSync(location)) continue;
    bytes += sizeOf(location);
    rmSync(location, { recursive: true, force: true });
    removed.push(key);
  }
  for (const bin of binDirectories(path.join(projectDir, "node_modules"))) {
    for (const command of readdirSync(bin)) {
      const link = path.join(bin, command);
      // statSync follows the link: it throws when the package it pointed into is gone.
      try {
        statSync(link);
      } catch {
        rmSync(link, { force: true });
      }
    }
  }
  const hidden = path.join(projectDir, "node_modules", ".package-lock.json");
  if (existsSync(hidden) && removed.length > 0) {
    const hiddenLock = JSON.parse(readFileSync(hidden, "utf8"));
    for (const key of removed) {
      for (const entry of Object.keys(hiddenLock.packages ?? {})) {
        if (entry === key || entry.startsWith(`${key}/`)) delete hiddenLock.packages[entry];
      }
    }
    writeFileSync(hidden, JSON.stringify(hiddenLock, null, 2) + "\n");
  }
  return { removed, bytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const projectDir = process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const { removed, bytes } = pruneProduction(projectDir);
  const names = removed.map((key) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length));
  console.log(
    `prune-production: removed ${removed.length} package(s), ${(bytes / 1024 / 1024).toFixed(1)} MB` +
      (names.length > 0 ? `: ${names.join(", ")}` : ""),
  );
}
