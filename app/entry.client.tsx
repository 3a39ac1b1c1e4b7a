import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { holdDiscreteEvents } from "~/takeover/hold-discrete-events";
import { OnTakeover } from "~/takeover/on-takeover";

// Until React has taken the page over, a visitor's presses go to the browser alone (app/takeover/).
const release = holdDiscreteEvents(window);

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <OnTakeover onTakeover={release} />
      <RemixBrowser />
    </StrictMode>,
  );
});
