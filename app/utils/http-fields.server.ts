// Reading HTTP header fields the same way wherever they are read: in routes (Fetch API headers) and in what the
// server runs before Remix (node:http headers, through the build: app/server-build/build-entry.server.ts).
import fresh from "fresh";

/** The first of a header's comma-separated values (proxies append theirs), trimmed. */
export function firstValue(header: string | string[] | null | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(",")[0]?.trim();
}

/** Every comma-separated value of a header, trimmed (undefined when the header is absent). */
export function allValues(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  return (Array.isArray(header) ? header.join(",") : header).split(",").map((value) => value.trim());
}

/** Whether `If-None-Match` names `etag`, by the weak comparison it uses (W/"x" matches "x"), or is `*`. */
export function matchesEtag(header: string | string[] | null | undefined, etag: string): boolean {
  if (typeof header !== "string") return false;
  // Only the validator is asked about: a reload's `Cache-Control: no-cache` still gets a 304 for an unchanged page.
  return fresh({ "if-none-match": header.trim() }, { etag });
}
