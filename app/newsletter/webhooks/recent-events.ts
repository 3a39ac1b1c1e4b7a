/**
 * The ids of the last events handed to the list, so that a relay delivering the same event again (its retry after
 * a lost answer) costs nothing and a soft bounce is not counted twice while this process runs. Bounded: the oldest
 * ids go first. The list's own idempotence covers what this forgets (a restart, a very old retry).
 */
export function createRecentEvents(capacity = 10_000) {
  const ids = new Set<string>();
  return {
    has: (id: string) => ids.has(id),
    add(id: string) {
      ids.delete(id);
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value!);
    },
  };
}
