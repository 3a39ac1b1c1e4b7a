// The automatic backups' rules, without any file or clock of their own: names, which day a backup belongs to, whether
// start-up owes one, which old ones go. The files themselves are written by backups.server.ts.
import { localDateAt } from "~/utils/days.server";

/** Between two automatic backups. */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The files named by their time: the automatic backups, and the copies a restore set aside. */
const TIMED = /^(newsletter|replaced)-(\d{4})-(\d\d)-(\d\d)T(\d\d)(\d\d)(\d\d)Z\.sqlite$/;

/**
 * An automatic backup's file name: the UTC time it was taken, to the second, so names sort by age and hold no
 * character a file system or a shell dislikes, e.g. newsletter-2026-11-23T201500Z.sqlite.
 */
export function backupFileName(at: Date): string {
  const iso = at.toISOString();
  return `newsletter-${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(":", "")}Z.sqlite`;
}

/** The time in an automatic backup's or a replaced copy's name; null for any other name. */
function timeInName(name: string): Date | null {
  const match = TIMED.exec(name);
  if (!match) return null;
  const [, kind, year, month, day, hour, minute, second] = match;
  const at = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  if (Number.isNaN(at.getTime())) return null;
  return (kind === "replaced" ? replacedFileName(at) : backupFileName(at)) === name ? at : null;
}

/** When an automatic backup was taken, from its name; null for any other file (the owner's own copies are left be). */
export function backupTakenAt(name: string): Date | null {
  return name.startsWith("newsletter-") ? timeInName(name) : null;
}

/**
 * Files of the backup folder, newest first: by the time in the name when it has one (automatic backups and the
 * copies a restore set aside), else by when the file was last written. The name wins because a backup copied back
 * onto the machine gets a new modification time, and a name's kind must not decide its place (replaced-… sorts after
 * newsletter-… by letters whatever their age).
 */
export function newestFirst<T extends { name: string; modified: Date }>(files: T[]): T[] {
  const time = (file: T) => (timeInName(file.name) ?? file.modified).getTime();
  return [...files].sort((a, b) => time(b) - time(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A copy's scraps: the `.<name>.partial` it is written as, and the journal files SQLite may make beside it. */
const PARTIAL = /^\.(.+)\.partial(?:-journal|-wal|-shm)?$/;

/**
 * The scraps a crash left in the backup folder, to delete before a new automatic backup: an automatic backup's only
 * (the server makes one copy at a time, so none of them is under way). Anyone else's (the owner's tool copying into
 * this folder, a restore setting the list aside) is theirs: other files in the folder are never touched.
 */
export function stalePartials(files: { name: string }[]): string[] {
  return files
    .filter(({ name }) => {
      const match = PARTIAL.exec(name);
      return match !== null && backupTakenAt(match[1]!) !== null;
    })
    .map((file) => file.name);
}

/**
 * Why a copy of `copyBytes` should not be written to a disk with `freeBytes` free, or null if it may: it must leave
 * `reserveBytes`, since with the default folder that disk is DATA_DIR's, and sign-ups need room there more than one
 * more backup does.
 */
export function backupSpaceProblem(dir: string, freeBytes: number, copyBytes: number, reserveBytes: number) {
  const needed = copyBytes + reserveBytes;
  if (freeBytes >= needed) return null;
  return `${dir} has ${Math.floor(freeBytes / 1024)} KiB free; a copy needs ${Math.ceil(needed / 1024)} KiB`;
}

/** Whether start-up owes a backup: none of `names` was taken on `now`'s date in `timeZone`. */
export function backupDueAtStart(names: string[], now: Date, timeZone: string): boolean {
  const today = localDateAt(now, timeZone).toString();
  return !names.some((name) => {
    const at = backupTakenAt(name);
    return at !== null && localDateAt(at, timeZone).toString() === today;
  });
}

/** The automatic backups whose name says they were taken after `now`: a clock set wrong once, or a copy from elsewhere. */
export function futureBackups(names: string[], now: Date): string[] {
  return names.filter((name) => (backupTakenAt(name)?.getTime() ?? Number.NEGATIVE_INFINITY) > now.getTime());
}

/**
 * The automatic backups beyond the newest `keep`, oldest last; other files are never chosen. Given `now`, backups
 * named after it are left out (neither kept in the count nor deleted: one wrong date must not push out every new
 * backup), and `made` (the backup just written) is never chosen.
 */
export function backupsToDelete(names: string[], keep: number, { now, made }: { now?: Date; made?: string } = {}) {
  const future = new Set(now ? futureBackups(names, now) : []);
  const automatic = names
    .filter((name) => backupTakenAt(name) !== null && !future.has(name))
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return automatic.slice(keep).filter((name) => name !== made);
}

/** The name the copy replaced by a restore keeps: what it was, and when it was set aside. */
export function replacedFileName(at: Date): string {
  return backupFileName(at).replace(/^newsletter-/, "replaced-");
}
