// Preloaded into the production server by tests (`node --import ./tests/support/moved-clock.mjs server/index.mjs`):
// the process's wall clock (`new Date()`, `Date.now()`, `Date()`) reads MOVED_CLOCK's first instant at start and runs
// on from there; each SIGUSR2 moves it to the next instant of the list (comma-separated ISO times). A test can then
// put the server just before a Brussels midnight and past it, with no waiting and nothing in the server's own code
// that exists only for tests: without this preload (production, npm start, Docker) the clock is the real one.
// Timers are left alone (they run on the monotonic clock).
const RealDate = Date;
const instants = (process.env.MOVED_CLOCK ?? "")
  .split(",")
  .filter(Boolean)
  .map((text) => RealDate.parse(text));
if (instants.length === 0 || instants.some((instant) => Number.isNaN(instant))) {
  throw new Error(`moved-clock.mjs: MOVED_CLOCK must list ISO times, got ${JSON.stringify(process.env.MOVED_CLOCK)}`);
}
let offset = 0;
/** @param {number} instant */
const moveTo = (instant) => (offset = instant - RealDate.now());
const now = () => RealDate.now() + offset;
moveTo(/** @type {number} */ (instants.shift()));
process.on("SIGUSR2", () => {
  const next = instants.shift();
  if (next !== undefined) moveTo(next);
  console.log(`moved-clock: now ${new RealDate(now()).toISOString()}`);
});

globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length > 0 ? args : [now()], newTarget),
  apply: () => new RealDate(now()).toString(),
  get: (target, property, receiver) => (property === "now" ? now : Reflect.get(target, property, receiver)),
});
