/**
 * No first paint of half a page: a slow connection or a busy browser could otherwise paint what it has parsed so far,
 * and a row centred on its content (the hero's buttons) would jump when the rest arrives. Buys: no layout shift in 160
 * loads (0.0001 in 5 of 80 before; app/perf/README.md). The document is one small, cached response, so waiting for its
 * end costs next to nothing.
 *
 * The class on `<body>` while app/perf/ is on (root.tsx); the rule is in ./whole-document-first.css, part of the
 * page's stylesheet, which the first paint waits for anyway. It keeps the body hidden until its last element, the
 * toast region, has been parsed. (`<link rel="expect" blocking="render">` said the same in the head, but the HTML
 * checker accepts `blocking` on a stylesheet link only.)
 */
export const WHOLE_DOCUMENT_FIRST = "whole-document-first";
