// A DKIM key record (RFC 6376 section 3.6.1) and whether it is the public half of the key the app signs with.
import { createPublicKey, type KeyObject } from "node:crypto";

export interface DkimKeyRecord {
  /** k=: rsa unless said otherwise. */
  keyType: string;
  /** p= without spaces; empty means the key was revoked. */
  publicKey: string;
}

export type DkimRecordParse = { record: DkimKeyRecord } | { error: string };

export function parseDkimRecord(txt: string): DkimRecordParse {
  const tags = new Map<string, string>();
  for (const part of txt.split(";")) {
    const [name, ...value] = part.split("=");
    if (name?.trim()) tags.set(name.trim().toLowerCase(), value.join("=").replace(/\s+/g, ""));
  }
  const version = tags.get("v");
  if (version !== undefined && version !== "DKIM1") return { error: `v=${version} is not DKIM1` };
  const publicKey = tags.get("p");
  if (publicKey === undefined) return { error: "the record has no key (p=)" };
  return { record: { keyType: (tags.get("k") ?? "rsa").toLowerCase(), publicKey } };
}

/** The p= value for a private key: its public half, DER (SubjectPublicKeyInfo) in base64, as DKIM publishes RSA keys. */
export function publicKeyValue(privateKey: KeyObject): string {
  const publicKey = createPublicKey(privateKey);
  if (publicKey.asymmetricKeyType === "ed25519") {
    // RFC 8463: Ed25519 keys are published as the raw 32 bytes, not wrapped in SubjectPublicKeyInfo.
    return (publicKey.export({ type: "spki", format: "der" }) as Buffer).subarray(-32).toString("base64");
  }
  return (publicKey.export({ type: "spki", format: "der" }) as Buffer).toString("base64");
}

/** The whole TXT value to publish at `<selector>._domainkey.<domain>` for a private key. */
export function dkimRecordFor(privateKey: KeyObject): string {
  const type = privateKey.asymmetricKeyType === "ed25519" ? "ed25519" : "rsa";
  return `v=DKIM1; k=${type}; p=${publicKeyValue(privateKey)}`;
}

/** Whether the published record is the public half of `privateKey`. */
export function recordMatchesKey(record: DkimKeyRecord, privateKey: KeyObject): boolean {
  return (
    record.publicKey !== "" && record.publicKey.replace(/=+$/, "") === publicKeyValue(privateKey).replace(/=+$/, "")
  );
}
