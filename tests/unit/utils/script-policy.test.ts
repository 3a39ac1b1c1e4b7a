import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isNoAnswer, NO_ANSWER } from "~/newsletter/sign-up/no-answer";
import { inlineScriptHashes, securityHeaders } from "~/utils/security-headers.server";

const sha256 = (text: string) => `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
const scriptSrc = (headers: Record<string, string>) =>
  /script-src ([^;]+)/.exec(headers["Content-Security-Policy"] ?? "")?.[1];

describe("inlineScriptHashes", () => {
  it("hashes exactly the text of each inline script, in order, once each", () => {
    const html =
      '<html><head><script>window.__ctx = {"a":1};</script></head><body><p>x</p>' +
      '<script type="module" async="">import "/build/a.js";\nimport("/build/b.js");</script>' +
      '<script>window.__ctx = {"a":1};</script></body></html>';
    expect(inlineScriptHashes(html)).toEqual([
      sha256('window.__ctx = {"a":1};'),
      sha256('import "/build/a.js";\nimport("/build/b.js");'),
    ]);
  });

  it("leaves out scripts loaded from a file, and finds none in a page without scripts", () => {
    expect(inlineScriptHashes('<script type="module" src="/build/entry.js"></script>')).toEqual([]);
    expect(inlineScriptHashes("<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>")).toEqual([]);
  });

  it("leaves out data blocks, which the browser never runs, and keeps classic and module scripts", () => {
    const html =
      '<script type="application/ld+json">{"@type":"Person"}</script><script type="text/javascript">a=1</script>' +
      "<script type='module'>b=2</script><script type=\"\">c=3</script>";
    expect(inlineScriptHashes(html)).toEqual([sha256("a=1"), sha256("b=2"), sha256("c=3")]);
  });

  it("a changed byte is a different hash", () => {
    expect(inlineScriptHashes("<script>a=1</script>")).not.toEqual(inlineScriptHashes("<script>a=2</script>"));
  });
});

describe("the script policy", () => {
  const request = new Request("http://localhost/");

  it("for a page rendered for one response: its nonce, trusted to load the rest", () => {
    expect(scriptSrc(securityHeaders({ nonce: "abc" }, request))).toBe("'nonce-abc' 'strict-dynamic'");
  });

  it("for a page shared by many visitors: our origin and the listed hashes, no nonce", () => {
    const policy = scriptSrc(securityHeaders({ inlineScriptHashes: ["sha256-AAA=", "sha256-BBB="] }, request));
    expect(policy).toBe("'self' 'sha256-AAA=' 'sha256-BBB='");
  });
});

describe("isNoAnswer", () => {
  it("recognises only the no-answer result", () => {
    expect(isNoAnswer({ ...NO_ANSWER })).toBe(true);
    for (const other of [null, undefined, {}, { noAnswer: false }, "noAnswer", { toast: "x" }]) {
      expect(isNoAnswer(other)).toBe(false);
    }
  });
});
