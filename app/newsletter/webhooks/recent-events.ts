/**
 * What the delivery remembers of the events it applied: the durable journal (journal.server.ts), or, when its file
 * cannot be opened, this bounded memory of the last ids, so a retry while this process runs still costs nothing.
 */
export interface AppliedEvents {
  applied(eventId: string): boolean;
  markApplied(eventId: string, now: Date): void;
}

export function createRecentEvents(capacity = 10_000): AppliedEvents {
  const ids = new Set<string>();
  return {
    applied: (id) => ids.has(id),
    markApplied(id) {
      ids.delete(id);
      ids.add(id);
      if (ids.size > capacity) ids.delete(ids.values().next().value!);
    },
  };
}
