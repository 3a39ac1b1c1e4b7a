import { MAX_DISCARD_BYTES } from "~/utils/read-form.server";

/** How long a body nobody wants may keep coming before its connection is cut. */
export const DROP_BODY_GRACE_MS = 5_000;

/**
 * Reads a request's body to its end and keeps none of it, so the client (still sending) gets the answer instead of a
 * reset connection; past MAX_DISCARD_BYTES or DROP_BODY_GRACE_MS the rest is cut off instead. Never throws.
 */
export async function dropBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  const reader = request.body.getReader();
  let left = MAX_DISCARD_BYTES;
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), DROP_BODY_GRACE_MS);
  try {
    while (left > 0) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
    }
    await reader.cancel().catch(() => undefined);
  } catch {
    // The client went, or the grace ended: nothing is left to read.
  } finally {
    clearTimeout(timer);
  }
}
