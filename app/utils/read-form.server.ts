/** A form post is a few hundred bytes; anything past this is not a sign-up. */
export const MAX_FORM_BYTES = 8 * 1024;
/**
 * Oversized bodies up to this size are read to the end and discarded so the client, still sending, gets our answer
 * (a toast) instead of a reset connection. Beyond it the connection is cut: only a misbehaving client sends that much.
 */
export const MAX_DRAIN_BYTES = 2 * 1024 * 1024;

/** Past this, a body is cut off rather than read to its end (the 413 may then be lost; the server is not). */
export const MAX_DISCARD_BYTES = 16 * 1024 * 1024;

async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number) {
  let left = budget;
  while (left > 0) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  await reader.cancel().catch(() => {});
}

export type FormRead =
  | { kind: "form"; form: FormData }
  | { kind: "too-large" }
  /** Too large to read to the end: answer 413 and close the connection. */
  | { kind: "far-too-large" }
  | { kind: "not-a-form" }
  /** The client hung up before the body's end: nobody is left to answer. */
  | { kind: "cut-off" };

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * Reads a form post with a size cap that counts the bytes actually received (Content-Length can be absent, as with
 * chunked uploads, or wrong), and parses it only when it is a form.
 */
export async function readForm(request: Request): Promise<FormRead> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > MAX_DRAIN_BYTES) {
    await request.body?.cancel().catch(() => {});
    return { kind: "far-too-large" };
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
        if (received > MAX_DRAIN_BYTES) {
          // The rest is read and dropped (up to a bound) before the 413 goes out: a connection closed with unread
          // data is reset, and a reset makes the client drop our answer unread.
          await discardRest(reader, MAX_DISCARD_BYTES - received);
          return { kind: "far-too-large" };
        }
        if (received <= MAX_FORM_BYTES) chunks.push(value);
      }
    } catch {
      // The only way reading a request's body fails: the connection went before the body's end ("aborted").
      return { kind: "cut-off" };
    }
  }
  if (received > MAX_FORM_BYTES) return { kind: "too-large" };

  // The multipart boundary is case-sensitive: only the comparison is lower-cased.
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!FORM_TYPES.some((type) => contentType.toLowerCase().startsWith(type))) return { kind: "not-a-form" };
  try {
    const body = new Blob(chunks as BlobPart[]);
    const form = await new Response(body, { headers: { "Content-Type": contentType } }).formData();
    return { kind: "form", form };
  } catch {
    // A multipart body without its boundary, or otherwise malformed.
    return { kind: "not-a-form" };
  }
}
