// The server's last resort: whatever throws while a request is handled, at once or later in a promise (the page
// cache's render), answers the site's own 500 page. Left to Node, an exception thrown by a request listener or a
// rejection nobody handles ends the process, and with it every other visitor's request.

/** @typedef {import("node:http").IncomingMessage} IncomingMessage */
/** @typedef {import("node:http").ServerResponse} ServerResponse */
/** @typedef {(req: IncomingMessage, res: ServerResponse, error: unknown) => void} ErrorAnswer */

/**
 * @param {{
 *   answerServerError: (req: IncomingMessage, res: ServerResponse, error: unknown, https: boolean) => void,
 *   isHttps: (req: IncomingMessage) => boolean,
 * }} options `answerServerError` writes the page and its one log line (app/server-build/server-error.server.ts).
 */
export function createLastResort({ answerServerError, isHttps }) {
  /**
   * Answers a request whose handling threw; never throws itself, so that it is safe in a `catch` and a `.catch()`.
   * @type {ErrorAnswer}
   */
  function answer(req, res, error) {
    let https = false;
    try {
      https = isHttps(req);
    } catch {
      // The fault may be in reading the request itself: the page without HSTS is still the right answer.
    }
    try {
      answerServerError(req, res, error, https);
    } catch {
      // Not even the 500 page could be written (its line is logged first): cutting the connection is all that is left.
      res.destroy();
    }
  }

  return {
    answer,
    /**
     * The server's request listener around `handle`: whatever `handle` throws gets `answer`.
     * @param {(req: IncomingMessage, res: ServerResponse) => void} handle
     * @returns {(req: IncomingMessage, res: ServerResponse) => void}
     */
    listener: (handle) => (req, res) => {
      try {
        handle(req, res);
      } catch (error) {
        answer(req, res, error);
      }
    },
  };
}
