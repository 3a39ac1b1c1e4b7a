/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Single fetch (React Router 7's only way): loaders and actions return plain data, typed as such. The export makes
// this file a module, so the declaration below adds to Remix's types instead of replacing them.
export {};

declare module "@remix-run/server-runtime" {
  interface Future {
    v3_singleFetch: true;
  }

  // What server/index.mjs (and its page cache) hands every loader and action: the one place this is declared.
  interface AppLoadContext {
    /** The visitor's address as the server sees it (with TRUST_PROXY, the proxy's X-Forwarded-For entry). */
    clientAddress: string;
    /**
     * Set by the page cache only: a page many visitors will get. It is rendered without a nonce, and its CSP allows
     * its inline scripts by hash (docs/decisions/006-page-cache-and-csp.md).
     */
    sharedPage?: boolean;
  }
}
