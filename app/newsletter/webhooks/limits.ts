/** The webhooks' own paths: `/webhooks/<relay>`. */
export const WEBHOOK_PATH_PREFIX = "/webhooks/";

/**
 * The largest documented batch fits with room: Brevo sends up to 500 events at once, about 300 KiB of ordinary
 * bounces (one report of the others is a few kilobytes, an SES bounce with every header ~10 KB). Past this, a body is
 * refused before it is read.
 */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** Whether a request target (path and query) is one of the webhooks'. */
export const isWebhookTarget = (target: string): boolean => target.startsWith(WEBHOOK_PATH_PREFIX);
