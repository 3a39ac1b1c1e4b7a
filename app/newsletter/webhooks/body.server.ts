import { discardRest, MAX_DISCARD_BYTES, receiveBody } from "~/utils/bounded-body.server";

export type BodyRead =
  { kind: "text"; text: string } | { kind: "too-large" } | { kind: "not-utf8" } | { kind: "cut-off" };

/**
 * A request's body as text, counting the bytes actually received (Content-Length may be absent or wrong): never more
 * than `limit` bytes are kept. Past it, the rest is read and dropped (up to a bound) so the client gets our 413.
 */
export async function readBoundedBody(request: Request, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) {
    await discardRest(request.body?.getReader(), MAX_DISCARD_BYTES);
    return { kind: "too-large" };
  }
  const body = await receiveBody(request, limit, limit);
  if (body.kind === "over") return { kind: "too-large" };
  if (body.kind === "cut-off") return body;
  try {
    return { kind: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(body.kept) };
  } catch {
    return { kind: "not-utf8" };
  }
}
