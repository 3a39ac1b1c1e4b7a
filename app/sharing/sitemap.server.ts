export interface SitemapEntry {
  /** Absolute. */
  url: string;
  /** YYYY-MM-DD. */
  lastModified?: string;
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character] ?? character);

/** A sitemaps.org `<urlset>` listing `entries`. */
export function sitemapXml(entries: SitemapEntry[]): string {
  const urls = entries.map(
    ({ url, lastModified }) =>
      `  <url>\n    <loc>${escapeXml(url)}</loc>\n` +
      (lastModified ? `    <lastmod>${escapeXml(lastModified)}</lastmod>\n` : "") +
      "  </url>\n",
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    urls.join("") +
    "</urlset>\n"
  );
}
