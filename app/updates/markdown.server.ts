// The one Markdown renderer of updates: the site's pages, the feed and the mails all use it, so an update reads the
// same everywhere. The owner is trusted, but a pasted snippet must not break the CSP or a mail client: raw HTML is
// text (html: false), only web and mail links survive, nothing carries a style attribute.
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { owner } from "~/content/site";

const SAFE_SCHEME = /^(?:https?|mailto):/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

const markdown = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

// Web and mail links, and links without a scheme (resolved against the site below); javascript:, data:, file: and
// every other scheme are left as text.
markdown.validateLink = (url) => {
  const trimmed = url.trim();
  return SAFE_SCHEME.test(trimmed) || !ANY_SCHEME.test(trimmed);
};

const siteOrigin = new URL(owner.siteUrl).origin;

/** A token's attribute as text (markdown-it's types allow numbers). */
const attr = (token: Token, name: string): string => String(token.attrGet(name) ?? "");

/** Absolute, so that the same HTML works in a mail; null for what is not a web or mail address after all. */
function absoluteHref(href: string): string | null {
  if (/^mailto:/i.test(href)) return href;
  try {
    const url = new URL(href, owner.siteUrl);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

const renderer = markdown.renderer;

renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index] as Token;
  const href = absoluteHref(attr(token, "href"));
  if (href === null) token.attrs = [];
  else {
    token.attrSet("href", href);
    if (!href.startsWith("mailto:") && new URL(href).origin !== siteOrigin) token.attrSet("rel", "noopener");
  }
  return self.renderToken(tokens, index, options);
};

// No images: a remote one would be tracking in a mail and blocked by the CSP on the site. The picture becomes a link
// to it, named by its alternative text.
renderer.rules.image = (tokens, index) => {
  const token = tokens[index] as Token;
  const href = absoluteHref(attr(token, "src"));
  const label = markdown.utils.escapeHtml(token.content || "image");
  if (href === null) return label;
  const rel = new URL(href).origin === siteOrigin ? "" : ' rel="noopener"';
  return `<a href="${markdown.utils.escapeHtml(href)}"${rel}>${label}</a>`;
};

// Headings keep the level the owner wrote (`##` is h2, as on the page, in the feed and in the mail), under the
// page's title, its only h1: a `#` heading becomes h2 too.
renderer.rules.heading_open = (tokens, index, options, _env, self) => {
  const token = tokens[index] as Token;
  token.tag = `h${Math.max(2, Number(token.tag.slice(1)))}`;
  return self.renderToken(tokens, index, options);
};
renderer.rules.heading_close = renderer.rules.heading_open;

// Whole class names, so that Tailwind (which reads this folder) generates them.
const ALIGN_CLASS = { left: "text-left", center: "text-center", right: "text-right" } as const;

// markdown-it aligns table cells with a style attribute, which the CSP refuses: a class does the same.
for (const rule of ["th_open", "td_open"] as const) {
  renderer.rules[rule] = (tokens, index, options, _env, self) => {
    const token = tokens[index] as Token;
    const align = /text-align:(left|center|right)/.exec(attr(token, "style"))?.[1];
    token.attrs = align ? [["class", ALIGN_CLASS[align as keyof typeof ALIGN_CLASS]]] : [];
    return self.renderToken(tokens, index, options);
  };
}

/** The update's body as HTML, safe to place in a page or a mail as it is. */
export function renderUpdateHtml(source: string): string {
  return markdown.render(source);
}

/** A link's text, then its address in brackets unless the text is the address itself. */
function linkWithAddress(text: string, href: string | null): string {
  const address = href?.replace(/^mailto:/i, "");
  return address === undefined || address === text ? text : `${text} (${address})`;
}

function inlineText(children: Token[]): string {
  let text = "";
  let link: { href: string | null; text: string } | null = null;
  for (const token of children) {
    if (token.type === "link_open") {
      link = { href: absoluteHref(attr(token, "href")), text: "" };
      continue;
    }
    if (token.type === "link_close" && link) {
      text += linkWithAddress(link.text, link.href);
      link = null;
      continue;
    }
    let piece = "";
    if (token.type === "text" || token.type === "code_inline") piece = token.content;
    else if (token.type === "softbreak" || token.type === "hardbreak") piece = "\n";
    else if (token.type === "image") {
      piece = linkWithAddress(token.content || "image", absoluteHref(attr(token, "src")));
    }
    if (link) link.text += piece;
    else text += piece;
  }
  return text;
}

/** The update's body as plain text (a mail's text part): paragraphs, list items, quotes, links with their address. */
export function renderUpdateText(source: string): string {
  const blocks: { text: string; list: number | null }[] = [];
  let listCount = 0;
  const lists: { ordered: boolean; next: number }[] = [];
  let quoteDepth = 0;
  let itemPrefix = "";
  let row: string[] | null = null;
  const push = (text: string) => {
    const indent = "  ".repeat(Math.max(0, lists.length - 1));
    const quote = "> ".repeat(quoteDepth);
    const lines = text
      .split("\n")
      .map((line, at) => quote + indent + (at === 0 ? itemPrefix : " ".repeat(itemPrefix.length)) + line);
    blocks.push({ text: lines.join("\n"), list: lists.length > 0 ? listCount : null });
    itemPrefix = "";
  };
  for (const token of markdown.parse(source, {})) {
    if (token.type === "bullet_list_open" || token.type === "ordered_list_open") {
      if (lists.length === 0) listCount++;
      lists.push({ ordered: token.type === "ordered_list_open", next: Number(token.attrGet("start") ?? 1) });
    } else if (token.type === "bullet_list_close" || token.type === "ordered_list_close") lists.pop();
    else if (token.type === "list_item_open") {
      const list = lists.at(-1);
      itemPrefix = list?.ordered ? `${list.next++}. ` : "- ";
    } else if (token.type === "blockquote_open") quoteDepth++;
    else if (token.type === "blockquote_close") quoteDepth--;
    else if (token.type === "tr_open") row = [];
    else if (token.type === "tr_close" && row) {
      push(row.join(" | "));
      row = null;
    } else if (token.type === "inline") {
      const text = inlineText(token.children ?? []);
      if (row) row.push(text);
      else push(text);
    } else if (token.type === "fence" || token.type === "code_block") push(token.content.replace(/\n$/, ""));
    else if (token.type === "hr") push("---");
  }
  // A list's items stay together; every other block is a paragraph of its own.
  return blocks
    .map((block, at) => {
      const sameList = block.list !== null && blocks[at - 1]?.list === block.list;
      return (at === 0 ? "" : sameList ? "\n" : "\n\n") + block.text;
    })
    .join("");
}
