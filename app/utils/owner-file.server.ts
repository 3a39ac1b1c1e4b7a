// Reading a file the owner points the server at (the welcome mail, the DKIM key): only a regular file, and never more
// than it may hold. Opened without blocking, so a FIFO put there cannot hold the reader (and the server) waiting for
// a writer; its kind and size are known before a byte is read, so a link to /dev/zero or a huge file is refused at
// once instead of read until memory runs out.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** Why the file cannot be used, in words for one line: "is a FIFO, not a regular file", "cannot be read (EACCES)". */
export class OwnerFileError extends Error {
  override name = "OwnerFileError";
  constructor(
    readonly problem: string,
    readonly code?: string,
  ) {
    super(problem);
  }
}

const KINDS: [keyof Stats, string][] = [
  ["isDirectory", "a folder"],
  ["isFIFO", "a FIFO"],
  ["isCharacterDevice", "a device"],
  ["isBlockDevice", "a device"],
  ["isSocket", "a socket"],
];

const kindOf = (stats: Stats) =>
  KINDS.find(([test]) => (stats[test] as () => boolean).call(stats))?.[1] ?? "not a regular file";

export interface OwnerFile {
  bytes: Buffer;
  stats: Stats;
}

/** The file's bytes and its stats, or null when there is no file (ENOENT); throws an OwnerFileError otherwise. */
export function readOwnerFile(file: string, maxBytes: number): OwnerFile | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    if (code === "ENOENT") return null;
    throw new OwnerFileError(`cannot be read (${code})`, code);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new OwnerFileError(`is ${kindOf(stats)}, not a regular file`);
    if (stats.size > maxBytes) throw new OwnerFileError(`is ${stats.size} bytes, over the ${maxBytes} it may hold`);
    // One byte more than allowed: a file that grew since fstat is caught too.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length <= maxBytes; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    }
    if (length > maxBytes) throw new OwnerFileError(`is over the ${maxBytes} bytes it may hold`);
    return { bytes: buffer.subarray(0, length), stats };
  } catch (error) {
    if (error instanceof OwnerFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new OwnerFileError(`cannot be read (${code})`, code);
  } finally {
    closeSync(fd);
  }
}
