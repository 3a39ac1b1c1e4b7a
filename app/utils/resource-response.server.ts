import { isHttps, resourceHeaders } from "~/utils/security-headers.server";

export interface ResourceAnswer {
  /** The Content-Type. */
  type: string;
  cacheControl: string;
  status?: number;
  /** Any other header of this answer (an ETag, a CORP exception). */
  headers?: Record<string, string>;
}

/**
 * A resource route's answer (robots.txt, the sitemap, the card, the health check): the body with its type and
 * caching, and the headers every response that is not a page carries (nothing in it may run or be framed).
 */
export function resourceResponse(request: Request, body: BodyInit | null, answer: ResourceAnswer): Response {
  return new Response(body, {
    status: answer.status ?? 200,
    headers: {
      ...resourceHeaders(isHttps(request)),
      "Content-Type": answer.type,
      "Cache-Control": answer.cacheControl,
      ...answer.headers,
    },
  });
}
