// The production SnsNetwork: the only code here that reaches out. It checks every URL again itself (HTTPS, SNS's
// host), follows no redirect (one could leave the host), and bounds time and size.
import { signingCertUrl, snsUrl, type SnsNetwork } from "./sns.server";

const TIMEOUT_MS = 5_000;
/** An SNS signing certificate is about 2 KB of PEM; anything far larger is not one. */
const MAX_CERTIFICATE_BYTES = 16 * 1024;
/** Certificates change rarely and are asked for with every message: the last few are kept. */
const CACHED_CERTIFICATES = 8;
/**
 * Fetches under way at once, at most: a flood of signed-looking posts never opens more outbound connections than
 * this. A message past it is answered 503 (SNS retries it), and the same URL asked again shares the fetch under way.
 */
export const MAX_CERTIFICATE_FETCHES = 2;

type Fetch = typeof globalThis.fetch;

export function createSnsNetwork(fetchImpl: Fetch = globalThis.fetch): SnsNetwork {
  const certificates = new Map<string, string>();
  const underWay = new Map<string, Promise<string>>();

  async function download(checked: URL): Promise<string> {
    const response = await fetchImpl(checked, { redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) throw new Error(`certificate answer ${response.status}`);
    const pem = await boundedText(response, MAX_CERTIFICATE_BYTES);
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw new Error("not a PEM certificate");
    if (certificates.size >= CACHED_CERTIFICATES) certificates.delete(certificates.keys().next().value!);
    certificates.set(checked.href, pem);
    return pem;
  }

  return {
    async fetchCertificate(url) {
      const checked = signingCertUrl(url.href);
      if (!checked) throw new Error("refused: not an SNS certificate URL over HTTPS");
      const cached = certificates.get(checked.href);
      if (cached) return cached;
      const shared = underWay.get(checked.href);
      if (shared) return shared;
      if (underWay.size >= MAX_CERTIFICATE_FETCHES) throw new Error("too many certificate fetches under way");
      const fetching = download(checked).finally(() => underWay.delete(checked.href));
      underWay.set(checked.href, fetching);
      return fetching;
    },
    async confirmSubscription(url) {
      const checked = snsUrl(url.href);
      if (!checked || checked.searchParams.get("Action") !== "ConfirmSubscription") {
        throw new Error("refused: not an SNS confirmation URL over HTTPS");
      }
      const response = await fetchImpl(checked, { redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
      await response.body?.cancel().catch(() => {});
      if (!response.ok) throw new Error(`confirmation answer ${response.status}`);
    },
  };
}

async function boundedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new Error("certificate too large");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
