/**
 * Waits until `condition` holds, looking again every 20 ms. `timeoutMs` only bounds a hang, far above what the awaited
 * event takes on a busy machine; past it, the error says what never happened.
 */
export async function until(condition: () => boolean, timeoutMs: number, what = "the condition") {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
