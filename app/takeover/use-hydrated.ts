import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False on the server and while React hydrates what the server sent, true afterwards. Components use it to keep their
 * first browser render identical to the server's HTML (the version that works without JavaScript) and only then
 * switch to the interactive version: no hydration mismatch.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
