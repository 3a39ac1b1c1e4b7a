import { createWebhookEndpoint } from "~/newsletter/webhooks/endpoint.server";
import { services } from "~/server-build/services.server";
import { env } from "~/utils/env.server";

// The relays' reports reach the list through the receiver the composition root built with it.
const endpoint = createWebhookEndpoint({ settings: env, receiver: () => services().webhooks });

export const loader = endpoint.loader;
export const action = endpoint.action;
