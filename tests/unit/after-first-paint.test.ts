import { describe, expect, it } from "vitest";
import { deferredBootstrap, scriptsAfterFirstPaint, WAIT_FOR_FIRST_PAINT } from "~/perf/after-first-paint.server";

// The shape `<Scripts>` renders (Remix 2, lazy route discovery on): links, the context script, the bootstrap module.
const remixScripts = (nonce = "") =>
  `<link rel="modulepreload" href="/build/entry.client-A.js"/><link rel="modulepreload" href="/build/root-B.js"/>` +
  `<script${nonce}>window.__remixContext = {"state":{}};</script>` +
  `<script${nonce} type="module" async="">;\nimport * as route0 from "/build/root-B.js";\n` +
  `import * as route1 from "/build/routes/_index-C.js";\nwindow.__remixManifest = {};\n` +
  `window.__remixRouteModules = {"root":route0,"routes/_index":route1};\n\nimport("/build/entry.client-A.js");</script>`;

describe("scriptsAfterFirstPaint", () => {
  it("keeps the preload links as elements that fetch nothing", () => {
    const html = scriptsAfterFirstPaint(remixScripts());
    expect(html).not.toContain("modulepreload");
    expect(html).toContain('<link href="/build/entry.client-A.js"/><link href="/build/root-B.js"/>');
  });

  it("imports the route modules only after the first paint, then runs the rest of Remix's bootstrap as it was", () => {
    const html = scriptsAfterFirstPaint(remixScripts(' nonce="n1"'));
    const bootstrap = /<script nonce="n1" type="module" async="">([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(bootstrap).toBe(
      `${WAIT_FOR_FIRST_PAINT}.then(() => Promise.all([import("/build/root-B.js"), ` +
        `import("/build/routes/_index-C.js")])).then(([route0, route1]) => {;\n\n\nwindow.__remixManifest = {};\n` +
        `window.__remixRouteModules = {"root":route0,"routes/_index":route1};\n\nimport("/build/entry.client-A.js");\n});`,
    );
    expect(bootstrap).not.toMatch(/^import /m);
    // The context script is untouched: the single-fetch stream scripts after it need it at once.
    expect(html).toContain('<script nonce="n1">window.__remixContext = {"state":{}};</script>');
  });

  it("keeps a side-effect import (the manifest import Remix writes without lazy discovery)", () => {
    expect(deferredBootstrap('import "/build/manifest-X.js";\nimport("/build/entry.client-A.js");')).toBe(
      `${WAIT_FOR_FIRST_PAINT}.then(() => Promise.all([import("/build/manifest-X.js")])).then(([_0]) => {\n` +
        `import("/build/entry.client-A.js");\n});`,
    );
  });

  it("leaves a page without Remix's bootstrap as it is", () => {
    const page = '<p>hi</p><script type="module">console.log(1)</script>';
    expect(scriptsAfterFirstPaint(page)).toBe(page);
  });
});
