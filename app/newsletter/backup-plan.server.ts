// The automatic backups' rules, without any file or clock of their own: names, which day a backup belongs to, whether
// start-up owes one, which old ones go. The files themselves are written by backups.server.ts.
import { localDateAt } from "~/utils/days.server";

/** Between two automatic backups. */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000;

const AUTOMATIC = /^newsletter-(\d{4})-(\d\d)-(\d\d)T(\d\d)(\d\d)(\d\d)Z\.sqlite$/;

/**
 * An automatic backup's file name: the UTC time it was taken, to the second, so names sort by age and hold no
 * character a file system or a shell dislikes, e.g. newsletter-2026-11-23T201500Z.sqlite.
 */
export function backupFileName(at: Date): string {
  const iso = at.toISOString();
  return `newsletter-${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(":", "")}Z.sqlite`;
}

/** When an automatic backup was taken, from its name; null for any other file (the owner's own copies are left be). */
export function backupTakenAt(name: string): Date | null {
  const match = AUTOMATIC.exec(name);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match;
  const at = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  return Number.isNaN(at.getTime()) || backupFileName(at) !== name ? null : at;
}

/** Whether start-up owes a backup: none of `names` was taken on `now`'s date in `timeZone`. */
export function backupDueAtStart(names: string[], now: Date, timeZone: string): boolean {
  const today = localDateAt(now, timeZone).toString();
  return !names.some((name) => {
    const at = backupTakenAt(name);
    return at !== null && localDateAt(at, timeZone).toString() === today;
  });
}

/** The automatic backups beyond the newest `keep`, oldest last; other files are never chosen. */
export function backupsToDelete(names: string[], keep: number): string[] {
  const automatic = names.filter((name) => backupTakenAt(name) !== null).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return automatic.slice(keep);
}

/** The name the copy replaced by a restore keeps: what it was, and when it was set aside. */
export function replacedFileName(at: Date): string {
  return backupFileName(at).replace(/^newsletter-/, "replaced-");
}
