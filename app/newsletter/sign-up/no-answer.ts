/**
 * What the index route's clientAction answers when a form post got no answer at all (offline, a dropped connection).
 * Routes skip their revalidation after it: asking the server for the page again would fail the same way.
 */
export interface NoAnswer {
  noAnswer: true;
}

export const NO_ANSWER: NoAnswer = { noAnswer: true };

export const isNoAnswer = (value: unknown): value is NoAnswer =>
  typeof value === "object" && value !== null && (value as Partial<NoAnswer>).noAnswer === true;
