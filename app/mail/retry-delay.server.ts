import { retryDelayMs } from "~/mail/classify.server";
import { env } from "~/utils/env.server";

/** The wait before the next attempt after `attempts` failed ones, from the owner's MAIL_FIRST_RETRY_SECONDS. */
export const nextRetryDelayMs = (attempts: number): number =>
  retryDelayMs(attempts, env.MAIL_FIRST_RETRY_SECONDS * 1000);
