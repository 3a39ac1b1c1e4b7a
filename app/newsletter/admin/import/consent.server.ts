/**
 * The consent record of an imported reader: they agreed elsewhere, so the record says where — the file, the tool
 * that wrote it, when the owner imported it, and when the reader signed up there as the file tells it.
 */
import { FORMAT_NAMES, type ImportFormat } from "~/newsletter/admin/import/formats.server";

export interface ImportConsent {
  source: "import";
  /** The file's name, without its folder (a folder can name a person's home). */
  file: string;
  format: ImportFormat;
  /** The format as a person reads it ("Mailchimp", "Kit (ConvertKit)"). */
  formatName: string;
  /** When the import ran (ISO 8601). */
  importedAt: string;
  /** When the reader signed up at the other tool (ISO 8601), or null when the file does not say. */
  originalDate: string | null;
  /** What the file's status columns said about the reader, in its own words, or null. */
  statusInFile: string | null;
}

export function importConsent(input: {
  file: string;
  format: ImportFormat;
  importedAt: Date;
  originalDate: string | null;
  statusInFile: string | null;
}): ImportConsent {
  return {
    source: "import",
    file: input.file,
    format: input.format,
    formatName: FORMAT_NAMES[input.format],
    importedAt: input.importedAt.toISOString(),
    originalDate: input.originalDate,
    statusInFile: input.statusInFile,
  };
}

/** The record in one sentence, for `show` and the CSV export. */
export function describeImportConsent(consent: ImportConsent): string {
  const signedUp = consent.originalDate ? `signed up there ${consent.originalDate}` : "sign-up date not in the file";
  const said = consent.statusInFile ? `; the file said ${consent.statusInFile}` : "";
  return `imported ${consent.importedAt} from ${consent.file} (${consent.formatName}); ${signedUp}${said}`;
}
