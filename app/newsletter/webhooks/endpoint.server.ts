// The relays' bounce and complaint reports (docs/newsletter.md, "Bounces and complaints"): one endpoint per relay,
// present only while its variable is set. The receiver (and through it the list) comes from the composition root.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { readBoundedBody } from "~/newsletter/webhooks/body.server";
import { createCredentialThrottle } from "~/newsletter/webhooks/credential-throttle";
import { configuredRelay, handleWebhook } from "~/newsletter/webhooks/handler.server";
import { MAX_WEBHOOK_BODY_BYTES } from "~/newsletter/webhooks/limits";
import { createTokenMemory } from "~/newsletter/webhooks/mailgun.server";
import type { Receiver } from "~/newsletter/webhooks/receive.server";
import { createSnsNetwork } from "~/newsletter/webhooks/sns-network.server";
import { clientAddressOf } from "~/utils/client-address.server";
import type { Env } from "~/utils/env.server";
import { warnThrottled } from "~/utils/log.server";
import { resourceResponse } from "~/utils/resource-response.server";

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  429: "Too Many Requests",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const reply = (request: Request, status: number, headers: Record<string, string> = {}) =>
  resourceResponse(request, `${STATUS_TEXT[status] ?? status}\n`, {
    type: "text/plain; charset=utf-8",
    cacheControl: "no-store",
    status,
    headers,
  });

export interface WebhookEndpointOptions {
  settings: Env;
  /** The running server's receiver (null outside the server): read per request, as the route loads before the start. */
  receiver: () => Receiver | null;
}

/** The route's loader and action over one receiver. */
export function createWebhookEndpoint({ settings, receiver }: WebhookEndpointOptions) {
  const sns = createSnsNetwork();
  const mailgunTokens = createTokenMemory();
  const throttle = createCredentialThrottle();

  async function loader({ request, params }: LoaderFunctionArgs) {
    // Relays only post; a browser (or a probe) finds nothing to read.
    return configuredRelay(params.relay ?? "", settings) ? reply(request, 405, { Allow: "POST" }) : reply(request, 404);
  }

  async function action({ request, params, context }: ActionFunctionArgs) {
    const name = params.relay ?? "";
    if (!configuredRelay(name, settings)) return reply(request, 404);
    const pair = `${name} ${clientAddressOf(context)}`;
    const wait = throttle.waitSeconds(pair, Date.now());
    const body = await readBoundedBody(request, MAX_WEBHOOK_BODY_BYTES);
    if (wait > 0) {
      warnThrottled(`Webhook ${name}: answered 429 (too many refused credentials from one client)`);
      return reply(request, 429, { "Retry-After": String(wait) });
    }
    if (body.kind === "too-large") return reply(request, 413, { Connection: "close" });
    if (body.kind !== "text") return reply(request, 400);

    const answer = await handleWebhook({
      relay: name,
      headers: request.headers,
      body: body.text,
      settings,
      now: new Date(),
      sns,
      mailgunTokens,
    });
    if (answer.status === 401) throttle.failed(pair, Date.now());
    else if (answer.status === 200) throttle.succeeded(pair);
    if (answer.status !== 200) {
      // The reason is a fixed phrase of ours (never a secret, never the body); throttled per relay and reason.
      warnThrottled(`Webhook ${name}: answered ${answer.status} (${answer.reason})`);
      return reply(request, answer.status);
    }
    if (answer.note) console.log(`Webhook ${name}: ${answer.note}`);
    if (answer.events.length === 0) return reply(request, 200);

    const taker = receiver();
    if (!taker) return reply(request, 503, { "Retry-After": "60" });
    const receipt = await taker.receive(answer.relay, answer.events);
    if (receipt.status !== 200) {
      warnThrottled(`Webhook ${name}: ${receipt.log}`);
      return reply(request, receipt.status, { "Retry-After": String(receipt.retryAfter ?? 60) });
    }
    console.log(`Webhook ${name}: ${receipt.log}`);
    return reply(request, 200);
  }

  return { loader, action };
}
