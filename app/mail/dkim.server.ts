/**
 * The owner's own DKIM signing (optional): DKIM_SELECTOR with DKIM_PRIVATE_KEY (PEM) or DKIM_PRIVATE_KEY_FILE, for
 * DKIM_DOMAIN (MAIL_FROM's domain when unset). Checked when the environment is parsed, so a key that does not parse
 * stops the server and the tools with a line naming the variable; the key itself is never in a message.
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { statSync } from "node:fs";
import { OwnerFileError, readOwnerFile } from "~/utils/owner-file.server";

/** A PEM RSA key of 4096 bits is about 3.3 KB: anything past this is not a key. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

/**
 * The settings it reads, by their environment names. Named here, not taken from env.server.ts: the environment's
 * check calls dkimProblem, so this module stays below it.
 */
export interface DkimEnv {
  DKIM_DOMAIN?: string | undefined;
  DKIM_SELECTOR?: string | undefined;
  DKIM_PRIVATE_KEY?: string | undefined;
  DKIM_PRIVATE_KEY_FILE?: string | undefined;
  MAIL_FROM?: string | undefined;
}

export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: KeyObject;
}

/**
 * The header fields every signature covers when the mail has them. RFC 8058 wants List-Unsubscribe and
 * List-Unsubscribe-Post signed (Gmail shows its unsubscribe button only then); Nodemailer's default list lacks the
 * latter, so the list is ours.
 */
export const SIGNED_FIELDS = [
  "From",
  "Reply-To",
  "Subject",
  "Date",
  "Message-ID",
  "To",
  "Cc",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "In-Reply-To",
  "References",
  "List-Id",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
].join(":");

export class DkimKeyError extends Error {
  constructor(
    readonly variable: keyof DkimEnv,
    message: string,
  ) {
    super(message);
  }
}

const domainOf = (from: string | undefined) => {
  const address = /<([^<>]*)>\s*$/.exec(from ?? "")?.[1] ?? from ?? "";
  return address.includes("@")
    ? address
        .slice(address.lastIndexOf("@") + 1)
        .trim()
        .toLowerCase()
    : undefined;
};

function readPem(settings: DkimEnv): { pem: string; variable: "DKIM_PRIVATE_KEY" | "DKIM_PRIVATE_KEY_FILE" } | null {
  if (settings.DKIM_PRIVATE_KEY && settings.DKIM_PRIVATE_KEY_FILE) {
    throw new DkimKeyError("DKIM_PRIVATE_KEY_FILE", "and DKIM_PRIVATE_KEY are both set: keep one");
  }
  if (settings.DKIM_PRIVATE_KEY) {
    // A .env line cannot hold line breaks: `\n` written out stands for them.
    return { pem: settings.DKIM_PRIVATE_KEY.replace(/\\n/g, "\n"), variable: "DKIM_PRIVATE_KEY" };
  }
  if (!settings.DKIM_PRIVATE_KEY_FILE) return null;
  let file: ReturnType<typeof readOwnerFile>;
  try {
    file = readOwnerFile(settings.DKIM_PRIVATE_KEY_FILE, MAX_KEY_FILE_BYTES);
  } catch (error) {
    if (!(error instanceof OwnerFileError)) throw error;
    throw new DkimKeyError("DKIM_PRIVATE_KEY_FILE", keyFileProblem(error));
  }
  if (!file) throw new DkimKeyError("DKIM_PRIVATE_KEY_FILE", "cannot be read (ENOENT)");
  return { pem: file.bytes.toString("utf8"), variable: "DKIM_PRIVATE_KEY_FILE" };
}

/** The image runs as uid 1000 (`node`): a key only root may read is the usual EACCES, and its fix is known. */
const keyFileProblem = (error: OwnerFileError) =>
  error.code === "EACCES"
    ? `cannot be read (EACCES): give it to the user the server runs as (in the image: chown 1000:1000, chmod 600)`
    : error.problem;

/**
 * A warning when the key file can be read by every user of the machine (its mode gives "other" read): anyone with a
 * shell there could sign mail as the domain. Null when it is private, or when there is no such file.
 */
export function dkimKeyFileWarning(settings: Pick<DkimEnv, "DKIM_PRIVATE_KEY_FILE">): string | null {
  const file = settings.DKIM_PRIVATE_KEY_FILE;
  if (!file) return null;
  try {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o004) === 0) return null;
    return `DKIM_PRIVATE_KEY_FILE ${file} can be read by every user of this machine (mode ${mode.toString(8)}): chmod 600 it (owner: the user the server runs as).`;
  } catch {
    return null;
  }
}

/** The signing key, null when the owner signs nothing here; throws a DkimKeyError naming the variable at fault. */
export function loadDkimKey(settings: DkimEnv): DkimKey | null {
  const source = readPem(settings);
  if (!source) return null;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: source.pem, format: "pem" });
  } catch {
    // Never the parser's words: some quote the input.
    throw new DkimKeyError(
      source.variable,
      "is not a PEM private key (-----BEGIN PRIVATE KEY----- or RSA PRIVATE KEY, unencrypted)",
    );
  }
  if (privateKey.asymmetricKeyType !== "rsa") {
    throw new DkimKeyError(
      source.variable,
      "must be an RSA key: Nodemailer signs with rsa-sha256 only (`openssl genrsa 2048`)",
    );
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 1024)
    throw new DkimKeyError(source.variable, `is a ${bits}-bit key: receivers refuse keys under 1024 bits (use 2048)`);
  if (!settings.DKIM_SELECTOR)
    throw new DkimKeyError("DKIM_SELECTOR", `is required with ${source.variable} (e.g. mail2026)`);
  const domain = settings.DKIM_DOMAIN?.toLowerCase() ?? domainOf(settings.MAIL_FROM);
  if (!domain) throw new DkimKeyError("DKIM_DOMAIN", `is required with ${source.variable} when MAIL_FROM is not set`);
  return { domain, selector: settings.DKIM_SELECTOR, privateKey };
}

/** For env.server.ts's check: the variable at fault and why, or null when the settings are usable. */
export function dkimProblem(settings: DkimEnv): { variable: string; message: string } | null {
  try {
    loadDkimKey(settings);
    return null;
  } catch (error) {
    if (error instanceof DkimKeyError) return { variable: error.variable, message: error.message };
    throw error;
  }
}

/** Nodemailer's transport-level `dkim` option: every mail through that transport signed, relaxed/relaxed. */
export function nodemailerDkim(key: DkimKey) {
  return {
    domainName: key.domain,
    keySelector: key.selector,
    privateKey: key.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    headerFieldNames: SIGNED_FIELDS,
  };
}

const cache = new WeakMap<object, DkimKey | null>();

/** The process's key, loaded once per environment object (env.server.ts already refused a bad one). */
export function dkimKeyOf(settings: DkimEnv): DkimKey | null {
  if (!cache.has(settings)) cache.set(settings, loadDkimKey(settings));
  return cache.get(settings) ?? null;
}
