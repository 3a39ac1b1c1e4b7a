import { receiveBody } from "~/utils/bounded-body.server";

/** A form post is a few hundred bytes; anything past this is not a sign-up. */
export const MAX_FORM_BYTES = 8 * 1024;
/**
 * Oversized bodies up to this size are read to the end and discarded so the client, still sending, gets our answer
 * (a toast) instead of a reset connection. Beyond it the connection is cut: only a misbehaving client sends that much.
 */
export const MAX_DRAIN_BYTES = 2 * 1024 * 1024;

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

  const body = await receiveBody(request, MAX_FORM_BYTES, MAX_DRAIN_BYTES);
  if (body.kind === "over") return { kind: "far-too-large" };
  if (body.kind === "cut-off") return body;
  if (body.received > MAX_FORM_BYTES) return { kind: "too-large" };

  // The multipart boundary is case-sensitive: only the comparison is lower-cased.
  const contentType = request.headers.get("Content-Type") ?? "";
  if (!FORM_TYPES.some((type) => contentType.toLowerCase().startsWith(type))) return { kind: "not-a-form" };
  try {
    const form = await new Response(new Uint8Array(body.kept), { headers: { "Content-Type": contentType } }).formData();
    return { kind: "form", form };
  } catch {
    // A multipart body without its boundary, or otherwise malformed.
    return { kind: "not-a-form" };
  }
}
