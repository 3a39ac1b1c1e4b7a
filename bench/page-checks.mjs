// Two checks on the running server: that the whole-page cache answers `/`, and what the social card costs.
import autocannon from "autocannon";
import { CONNECTIONS, DURATION_S } from "./options.mjs";
import { median } from "./report.mjs";

/**
 * Whether two anonymous requests got the very same page from the whole-page cache: the same bytes, the cache's ETag,
 * and no nonce (a rendered page has a fresh one). @param {string} base
 */
export async function pageCacheActive(base) {
  const get = async () => {
    const response = await fetch(`${base}/`);
    return { etag: response.headers.get("etag"), body: await response.text() };
  };
  const [a, b] = [await get(), await get()];
  return Boolean(a.etag && a.etag === b.etag && a.body === b.body && !a.body.includes(" nonce="));
}

// The social card (/card.png): the first request after a start renders it (satori and resvg loaded, fonts read, the
// picture drawn); every later one is answered from memory.

/** @param {string} base */
export async function measureSocialCard(base) {
  const start = performance.now();
  const first = await fetch(`${base}/card.png`);
  const bytes = (await first.arrayBuffer()).byteLength;
  const coldMs = Math.round(performance.now() - start);
  if (first.status !== 200) throw new Error(`/card.png answered ${first.status}`);
  /** @type {number[]} */
  const warm = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await (await fetch(`${base}/card.png`)).arrayBuffer();
    warm.push(performance.now() - started);
  }
  const seconds = Math.max(1, Math.round(DURATION_S / 2));
  const result = await autocannon({ url: `${base}/card.png`, connections: CONNECTIONS, duration: seconds });
  return {
    bytes,
    coldMs,
    cachedMedianMs: Math.round(median(warm) * 10) / 10,
    cachedThroughput: {
      durationSeconds: seconds,
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
    },
  };
}
