// Preloaded into the production server by tests (`node --import ./tests/support/daily-tick-on-signal.mjs`): whatever
// the server runs every 24 hours (its automatic backup) also runs when the process gets SIGUSR2. A test can then make
// the daily backup fall due at the moment it chooses, e.g. in the middle of a burst of sign-ups, with no day of
// waiting and nothing in the server's own code that exists only for tests. The timer itself is left as it is.
const DAY_MS = 24 * 60 * 60 * 1000;
const realSetInterval = globalThis.setInterval;

/**
 * @param {(...args: unknown[]) => void} callback
 * @param {number} [ms]
 * @param {unknown[]} args
 */
function setIntervalWithSignal(callback, ms, ...args) {
  if (ms === DAY_MS) process.on("SIGUSR2", () => callback(...args));
  return realSetInterval(callback, ms, ...args);
}
globalThis.setInterval = /** @type {typeof setInterval} */ (/** @type {unknown} */ (setIntervalWithSignal));
