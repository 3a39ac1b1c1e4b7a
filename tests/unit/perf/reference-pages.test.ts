import { describe, expect, it } from "vitest";
import { withoutScripts } from "../../../bench/reference-pages.mjs";

describe("the bench's page without scripts", () => {
  it("drops inline and external scripts and module preloads, and keeps everything else", () => {
    const html =
      '<head><link rel="modulepreload" href="/build/entry.js"/><style>p{}</style>' +
      '<script type="application/ld+json">{"a":"<b>"}</script></head>' +
      '<body><p>Text</p><script>window.__ctx = "</p>";</script>' +
      '<script type="module" async="">import("/build/entry.js");\n</script><div id="toast-region"></div></body>';
    expect(withoutScripts(html)).toBe(
      '<head><style>p{}</style></head><body><p>Text</p><div id="toast-region"></div></body>',
    );
  });
});
