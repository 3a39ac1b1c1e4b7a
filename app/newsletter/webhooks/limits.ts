/** The webhooks' own paths: `/webhooks/<relay>`. */
export const WEBHOOK_PATH_PREFIX = "/webhooks/";

/** A relay's report is a few kilobytes (an SES bounce with every header, ~10 KB): past this, a body is refused. */
export const MAX_WEBHOOK_BODY_BYTES = 256 * 1024;

/** Whether a request target (path and query) is one of the webhooks'. */
export const isWebhookTarget = (target: string): boolean => target.startsWith(WEBHOOK_PATH_PREFIX);
