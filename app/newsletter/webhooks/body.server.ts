import { MAX_DISCARD_BYTES } from "~/utils/read-form.server";

export type BodyRead =
  { kind: "text"; text: string } | { kind: "too-large" } | { kind: "not-utf8" } | { kind: "cut-off" };

/**
 * A request's body as text, counting the bytes actually received (Content-Length may be absent or wrong): never more
 * than `limit` bytes are kept. Past it, the rest is read and dropped (up to a bound) so the client gets our 413.
 */
export async function readBoundedBody(request: Request, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) {
    await discard(request.body?.getReader(), MAX_DISCARD_BYTES);
    return { kind: "too-large" };
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (request.body) {
    const reader = request.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        if (received > limit) {
          await discard(reader, MAX_DISCARD_BYTES - received);
          return { kind: "too-large" };
        }
        chunks.push(value);
      }
    } catch {
      // The only way reading a request's body fails: the connection went before the body's end.
      return { kind: "cut-off" };
    }
  }
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks)) };
  } catch {
    return { kind: "not-utf8" };
  }
}

async function discard(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, budget: number) {
  if (!reader) return;
  let left = budget;
  try {
    while (left > 0) {
      const { done, value } = await reader.read();
      if (done) return;
      left -= value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to answer.
  }
}
