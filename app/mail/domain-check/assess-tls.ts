// Whether the way to the relay is encrypted, and whether the sender will accept the relay's certificate. Pure.
import type { Finding } from "~/mail/domain-check/assess";
import { certificateName, certificateProblem, type CertificateReport } from "~/mail/domain-check/certificate";

export interface RelayTls {
  /** The host and port as SMTP_URL names them. */
  host: string;
  port: number;
  /** SMTP_URL names this machine (localhost, 127.0.0.1, ::1): nothing crosses a network. */
  loopback: boolean;
  /** SMTP_URL's `tls.rejectUnauthorized=false`: the sender takes any certificate. */
  acceptsAnyCertificate: boolean;
  /** SMTP_URL's `ignoreTLS=true`: the sender never asks for STARTTLS. */
  ignoresTls: boolean;
}

export type TlsInputs =
  | { kind: "plain"; relay: RelayTls }
  | { kind: "secured"; relay: RelayTls; how: "starttls" | "implicit"; certificate: CertificateReport }
  | { kind: "unreachable"; relay: RelayTls; error: string };

/** Where the owner's relay section is: the options, their risk, and the host's Postfix from the container. */
const OWN_RELAY_DOCS = "docs/newsletter.md#your-own-postfix";

function plainFinding(relay: RelayTls, where: string): Finding {
  const why = relay.ignoresTls ? "SMTP_URL says ignoreTLS=true" : "it does not offer STARTTLS";
  if (relay.loopback) {
    return {
      topic: "TLS",
      status: "ok",
      says: `the relay ${where} is on this machine and the mails go to it unencrypted (${why}): nothing crosses a network.`,
    };
  }
  return {
    topic: "TLS",
    status: "fix",
    says: relay.ignoresTls
      ? `SMTP_URL says ignoreTLS=true: the password and every mail would cross the network to ${where} readable.`
      : `the relay ${where} does not offer STARTTLS: the password and every mail would cross the network readable.`,
    fix: relay.ignoresTls
      ? "Remove ignoreTLS=true from SMTP_URL."
      : "Use the relay's submission port with STARTTLS (usually 587), or smtps:// on port 465.",
  };
}

export function assessTls(inputs: TlsInputs): Finding {
  const topic = "TLS";
  const { relay } = inputs;
  const where = `${relay.host}:${relay.port}`;
  if (inputs.kind === "unreachable") {
    return {
      topic,
      status: "fix",
      says: `the relay ${where} did not answer: ${inputs.error}.`,
      fix: "Check SMTP_URL's host and port, and that this machine may connect out to it.",
    };
  }
  if (inputs.kind === "plain") return plainFinding(relay, where);
  const opening =
    inputs.how === "implicit"
      ? "SMTP_URL is smtps://: the connection to the relay is encrypted from the first byte"
      : `the relay ${where} offers STARTTLS: the password and the mails cross the network encrypted`;
  const problem = certificateProblem(inputs.certificate, relay.host);
  if (!problem) return { topic, status: "ok", says: `${opening}.` };
  const certificate = `its certificate ${certificateName(inputs.certificate)}`;
  if (relay.acceptsAnyCertificate) {
    const says = `${opening}; ${certificate} would be refused (${problem}), but SMTP_URL's tls.rejectUnauthorized=false takes it: nothing proves the other end is your relay.`;
    return relay.loopback
      ? { topic, status: "ok", says }
      : {
          topic,
          status: "note",
          says,
          fix: `Fine on a network you control; elsewhere give the relay a certificate for ${relay.host} from an authority (Let's Encrypt) and drop the option (${OWN_RELAY_DOCS}).`,
        };
  }
  const accepting = `smtp://${relay.host.includes(":") ? `[${relay.host}]` : relay.host}:${relay.port}?tls.rejectUnauthorized=false`;
  return {
    topic,
    status: "fix",
    says: `${opening}, but the sender refuses ${certificate}: ${problem}. Every mail would fail.`,
    fix: `Give the relay a certificate for ${relay.host} from an authority (Let's Encrypt), or, for your own relay on this machine or a network you control, accept it in SMTP_URL: ${accepting} (keep the user and password). The mails stay encrypted, but the sender no longer checks who answers (${OWN_RELAY_DOCS}).`,
  };
}
