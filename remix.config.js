/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  serverModuleFormat: "esm",
  // build/index.js starts here: Remix's build plus what server/index.mjs and the owner's tools take from the app.
  server: "app/server-build/build-entry.server.ts",
  // Tailwind 4 runs through PostCSS (postcss.config.js); the built-in v3 integration stays off.
  tailwind: false,
  postcss: true,
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
  },
};
