import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

// The server's HTML is the whole page (it works without JavaScript): the browser paints it first, and React takes
// over after that frame rather than holding it back while it hydrates (docs/decisions/002). The timeout runs after
// the frame the callback precedes has been produced.
requestAnimationFrame(() => setTimeout(hydrate, 0));
