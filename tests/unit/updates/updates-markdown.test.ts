import { describe, expect, it } from "vitest";
import { renderUpdateHtml, renderUpdateText } from "~/updates/markdown.server";

describe("renderUpdateHtml", () => {
  it("renders Markdown, the update's headings one level below the page's title", () => {
    const html = renderUpdateHtml("# Week one\n\nShipped **SubTrackr**'s first screen.\n\n- a\n- b\n");
    expect(html).toContain("<h2>Week one</h2>");
    expect(html).toContain("<strong>SubTrackr</strong>");
    expect(html).toMatch(/<ul>\s*<li>a<\/li>\s*<li>b<\/li>\s*<\/ul>/);
  });

  it("keeps the owner's heading levels under the page's title: ## is h2, ### h3; # is h2 too (one h1 a page)", () => {
    const html = renderUpdateHtml("## Two\n\n### Three\n\n#### Four\n\n###### Six\n\n# One\n");
    expect(html).toBe("<h2>Two</h2>\n<h3>Three</h3>\n<h4>Four</h4>\n<h6>Six</h6>\n<h2>One</h2>\n");
  });

  it("escapes raw HTML: no script, iframe or inline style reaches the page", () => {
    const html = renderUpdateHtml(
      '<script>alert(1)</script>\n\n<iframe src="https://evil.example"></iframe>\n\n<p style="color:red">red</p>\n\nInline <img src=x onerror=alert(1)> and <span style="x">s</span>.\n',
    );
    expect(html).not.toMatch(/<script|<iframe|<img|<span|<p style/i);
    expect(html).not.toMatch(/<[a-z][^>]*\sstyle=/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;iframe");
  });

  it("refuses javascript:, data: and other schemes, whatever their spelling", () => {
    for (const href of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,x",
      "vbscript:x",
      "file:///etc/passwd",
    ]) {
      const html = renderUpdateHtml(`[click](${href})`);
      expect(html, href).not.toMatch(/href=/);
      expect(html, href).toContain("[click]");
    }
    expect(renderUpdateHtml("[x](java\tscript:alert(1))")).not.toMatch(/href="[^"]*script:/i);
    expect(renderUpdateHtml("[x](&#106;avascript:alert(1))")).not.toMatch(/href=/);
  });

  it("gives external links rel=noopener, and makes the site's own links absolute", () => {
    const html = renderUpdateHtml(
      "[peer](https://other.example/a) and [home](/updates) and [mail](mailto:a@b.example)",
    );
    expect(html).toContain('<a href="https://other.example/a" rel="noopener">peer</a>');
    expect(html).toContain('<a href="https://example.com/updates">home</a>');
    expect(html).toContain('<a href="mailto:a@b.example">mail</a>');
  });

  it("turns an image into a link to it (no remote image in a page or a mail)", () => {
    const html = renderUpdateHtml("![the first screen](https://cdn.example/shot.png)");
    expect(html).not.toContain("<img");
    expect(html).toContain('<a href="https://cdn.example/shot.png" rel="noopener">the first screen</a>');
    expect(renderUpdateHtml('![x"><script>](javascript:alert(1))')).not.toMatch(/<script|href=/);
  });

  it("aligns table cells with a class, not a style attribute", () => {
    const html = renderUpdateHtml("| a | b |\n|:-|-:|\n| 1 | 2 |\n");
    expect(html).not.toContain("style=");
    expect(html).toContain('<td class="text-right">2</td>');
  });
});

describe("renderUpdateText", () => {
  it("gives plain text: paragraphs, list items, quotes, links with their address", () => {
    const text = renderUpdateText(
      "# Week one\n\nShipped **it**, see [the page](/updates/x).\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\nBye <b>now</b>",
    );
    expect(text).toBe(
      [
        "Week one",
        "",
        "Shipped it, see the page (https://example.com/updates/x).",
        "",
        "- one",
        "- two",
        "",
        "1. first",
        "2. second",
        "",
        "> quoted",
        "",
        "Bye <b>now</b>",
      ].join("\n"),
    );
  });

  it("drops a refused link's address and keeps a bare address once", () => {
    expect(renderUpdateText("[x](javascript:alert(1)) https://other.example/a")).toBe(
      "[x](javascript:alert(1)) https://other.example/a",
    );
  });
});
