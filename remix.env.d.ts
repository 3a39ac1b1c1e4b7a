/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Single fetch (React Router 7's only way): loaders and actions return plain data, typed as such. The export makes
// this file a module, so the declaration below adds to Remix's types instead of replacing them.
export {};

declare module "@remix-run/server-runtime" {
  interface Future {
    v3_singleFetch: true;
  }
}
