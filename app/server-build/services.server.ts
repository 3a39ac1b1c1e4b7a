/**
 * This process's composition (composition.server.ts): the server's, composed and started by `startServices` (from
 * build-entry's onStart) before it listens; else an owner's command's, composed on first use. Routes and commands take
 * it through `services()`; `stopServices` ends it.
 */
import { compose, type Composition } from "~/server-build/composition.server";
import { env } from "~/utils/env.server";

let current: Composition | null = null;

/** The services of this process: the server's once started, else a command's (each part opened on first use). */
export function services(): Composition {
  current ??= compose(env, "command");
  return current;
}

/** Composes the server's services (a bad setting or file throws, stopping start-up) and starts them. */
export function startServices(): Composition {
  if (current?.role === "server") return current;
  const composed = compose(env, "server");
  current = composed;
  composed.start();
  return composed;
}

/** Stops what was started, and closes the list, when the server (or an owner's command) stops. */
export async function stopServices() {
  const was = current;
  current = null;
  await was?.stop();
}
