/**
 * The work's answer, or `timeUp()`'s (its value, or what it throws) once `ms` have passed, whichever comes first. The
 * work itself goes on: stopping it is the caller's business (an abort signal), this only bounds the wait. The timer
 * never keeps the process alive.
 */
export function withinTimeBox<T, U>(work: PromiseLike<T>, ms: number, timeUp: () => U): Promise<Awaited<T> | U> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(timeUp());
      } catch (error) {
        reject(error);
      }
    }, ms);
    timer.unref();
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
