// The file operations the store and its backups share: a copy is whole under its name or absent, flushed to the
// disk before anyone is told it exists, and never written to a disk too full for it.
import { closeSync, existsSync, fsyncSync, openSync, rmSync, statfsSync } from "node:fs";
import { copyFile, open, rename } from "node:fs/promises";
import path from "node:path";

/** The bytes an unprivileged process may still write on the disk holding `dir`. */
export const freeBytesOn = (dir: string) => {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize;
};

/** Flushes a file (or a folder's entries) to the disk without holding up the event loop. */
export async function syncToDisk(target: string) {
  const handle = await open(target, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** syncToDisk for the few places that cannot wait (a rescue inside a synchronous check): blocks the event loop. */
export function syncToDiskNow(target: string) {
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The temporary name a file is written under before it gets its own: hidden, in the same folder (one rename). */
export const partialName = (destination: string) =>
  path.join(path.dirname(destination), `.${path.basename(destination)}.partial`);

export interface AtomicWriteOptions {
  /** Whether `destination` may already exist (it is then replaced in one step); by default that is an error. */
  replace?: boolean;
  /** Files `write` may leave beside the partial one (e.g. SQLite's journals), removed with it whatever happens. */
  scrapSuffixes?: readonly string[];
}

const alreadyExists = (destination: string) => new Error(`${destination} already exists: choose a new file name`);

/**
 * Has `write` fill a temporary file beside `destination`, flushes it, renames it to `destination` and flushes the
 * folder (a rename is only as durable as the folder that records it): `destination` is whole or absent, never half.
 */
export async function writeAtomically<T>(
  destination: string,
  write: (partial: string) => Promise<T>,
  { replace = false, scrapSuffixes = [] }: AtomicWriteOptions = {},
): Promise<T> {
  if (!replace && existsSync(destination)) throw alreadyExists(destination);
  const partial = partialName(destination);
  const scraps = ["", ...scrapSuffixes].map((suffix) => `${partial}${suffix}`);
  const clear = () => scraps.forEach((scrap) => rmSync(scrap, { force: true }));
  clear();
  try {
    const result = await write(partial);
    await syncToDisk(partial);
    if (!replace && existsSync(destination)) throw alreadyExists(destination);
    await rename(partial, destination);
    await syncToDisk(path.dirname(destination));
    return result;
  } finally {
    clear();
  }
}

/** Copies `from` to `to` byte for byte, atomically (see writeAtomically); `to` is replaced if it exists. */
export const copyAtomically = (from: string, to: string) =>
  writeAtomically(to, (partial) => copyFile(from, partial), { replace: true });
