// A request body read by the bytes actually received (Content-Length may be absent, as with chunked uploads, or
// wrong): the sign-up form and the relays' webhooks share the loop, each with its own bounds.

/** Past this, a body is cut off rather than read to its end (the 413 may then be lost; the server is not). */
export const MAX_DISCARD_BYTES = 16 * 1024 * 1024;

export type ReceivedBody =
  /** The whole body arrived within `stopAfter` bytes; `kept` holds its first `keep` bytes. */
  | { kind: "received"; kept: Buffer; received: number }
  /** More than `stopAfter` bytes: the rest was read and dropped (up to MAX_DISCARD_BYTES in all). */
  | { kind: "over" }
  /** The client hung up before the body's end: nobody is left to answer. */
  | { kind: "cut-off" };

/** How long a body nobody wants may keep coming before its connection is cut. */
export const DROP_BODY_GRACE_MS = 5_000;

/**
 * Reads and drops what is left of a body, at most `budget` bytes and DROP_BODY_GRACE_MS, then cancels it: a
 * connection closed with unread data is reset, and a reset makes the client (still sending) drop our answer unread.
 * Never throws.
 */
export async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, budget: number) {
  if (!reader) return;
  let left = budget;
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

/** Reads a request's body to its end and keeps none of it (see discardRest). */
export async function dropBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  await discardRest(request.body.getReader(), MAX_DISCARD_BYTES);
}

/** Reads `request`'s body, keeping its first `keep` bytes, and gives up past `stopAfter` bytes. */
export async function receiveBody(request: Request, keep: number, stopAfter: number): Promise<ReceivedBody> {
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (!request.body) return { kind: "received", kept: Buffer.alloc(0), received };
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > stopAfter) {
        await discardRest(reader, MAX_DISCARD_BYTES - received);
        return { kind: "over" };
      }
      if (received <= keep) chunks.push(value);
    }
  } catch {
    // The only way reading a request's body fails: the connection went before the body's end.
    return { kind: "cut-off" };
  }
  return { kind: "received", kept: Buffer.concat(chunks), received };
}
