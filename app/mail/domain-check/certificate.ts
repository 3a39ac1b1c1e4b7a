// What is wrong with a relay's certificate, in the owner's words, from what the probe saw. Pure.

export interface CertificateReport {
  /** The certificate's subject (its CN) and issuer, as names. */
  subject: string;
  issuer: string;
  /** The names and addresses it is for (subjectAltName). */
  names: string[];
  validTo: string;
  /** Node's reason for not trusting the chain (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, …), or null. */
  chainError: string | null;
  /** Whether it is for another name than the one SMTP_URL connects to. */
  wrongName: boolean;
}

const CHAIN_WORDS: Record<string, (report: CertificateReport) => string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: () => "it is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: (report) => `its authority (${report.issuer}) is one nobody trusts but itself`,
  CERT_HAS_EXPIRED: (report) => `it expired (${report.validTo})`,
  CERT_NOT_YET_VALID: () => "it is not valid yet",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: (report) => `its issuer (${report.issuer}) is not an authority Node trusts`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: (report) => `its issuer (${report.issuer}) is not an authority Node trusts`,
};

/** Why the sender would refuse `report` for `host`, or null when it would take it. */
export function certificateProblem(report: CertificateReport, host: string): string | null {
  const reasons: string[] = [];
  if (report.chainError) {
    reasons.push(CHAIN_WORDS[report.chainError]?.(report) ?? `Node does not trust it (${report.chainError})`);
  }
  if (report.wrongName) {
    const names = report.names.length > 0 ? report.names.join(", ") : report.subject || "no name";
    reasons.push(`it is for ${names}, not ${host}`);
  }
  return reasons.length > 0 ? reasons.join(", and ") : null;
}

/** The certificate as the owner finds it in Postfix's settings: its subject and issuer. */
export const certificateName = (report: CertificateReport): string =>
  report.subject === report.issuer ? `"${report.subject}"` : `"${report.subject}" (issued by "${report.issuer}")`;
