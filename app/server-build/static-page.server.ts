// The pages the server sends when Remix cannot be asked (a refused request, a fault around Remix): plain HTML with no
// dependency on the app rendering, in the browser's own colours for either scheme.

/** A page of one heading, one paragraph and the way home. Every argument is fixed text of ours, never a visitor's. */
export function staticPage(title: string, text: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex">
<title>${title}</title></head>
<body><main><h1>${title}</h1>
<p>${text}</p>
<p><a href="/">Return to Home</a></p></main></body></html>
`;
}
