import { useLayoutEffect } from "react";

/**
 * Renders nothing, and calls `onTakeover` when React commits the page it hydrated: from then on React handles the
 * page's events itself. A layout effect, so nothing is held a moment longer than the commit.
 */
export function OnTakeover({ onTakeover }: { onTakeover: () => void }) {
  useLayoutEffect(onTakeover, [onTakeover]);
  return null;
}
