type ShutdownHook = () => void | Promise<void>;

const hooks: ShutdownHook[] = [];

/** Registers work to do when the server stops (e.g. closing the database); runs in reverse order of registration. */
export function onShutdown(hook: ShutdownHook) {
  hooks.push(hook);
}

export async function runShutdownHooks() {
  for (const hook of hooks.splice(0).reverse()) {
    try {
      await hook();
    } catch (error) {
      console.error("Shutdown hook failed:", error);
    }
  }
}
