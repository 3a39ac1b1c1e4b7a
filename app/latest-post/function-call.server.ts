import type { SupabaseClient } from "@supabase/supabase-js";
import type { LatestPostBody } from "../../supabase/functions/_shared/latest-post/post.ts";
import { isPostSource, isoDate, webUrl } from "../../supabase/functions/_shared/latest-post/post.ts";
import { LOG_PREFIX, MAX_CAUSE_CHARS, MAX_TEXT_CHARS, type Log } from "~/latest-post/limits.server";
import { describeError, describeValue, oneLine, truncate } from "~/utils/log.server";

const LATEST_POST_FUNCTION = "get-latest-tweet";

/**
 * One uncached call of the edge function. Never throws and never takes longer than `timeoutMs` (the call's hard
 * limit): any failure is null plus one log line starting with 'Failed to fetch tweet'.
 */
export async function callLatestPostFunction(
  client: SupabaseClient,
  timeoutMs: number,
  log: Log,
): Promise<LatestPostBody | null> {
  const fail = (cause: string) => {
    // The cause can come from the function's answer: keep the log line one line, and short.
    log(`${LOG_PREFIX}: ${oneLine(cause, MAX_CAUSE_CHARS)}`);
    return null;
  };
  try {
    // No body: the function takes no input. `timeout` aborts the request, including a body that never ends.
    const { data, error } = await client.functions.invoke<unknown>(LATEST_POST_FUNCTION, { timeout: timeoutMs });
    if (error) return fail(describeInvokeError(error, timeoutMs));
    if (!isRecord(data)) return fail(`unexpected answer (${describeValue(data)}), expected a JSON object`);
    // Truthy, as the function reports trouble with a message; `error: null` next to a text is no failure.
    if (data.error) return fail(`function reported an error: ${String(data.error)}`);
    if (typeof data.text !== "string") return fail(`text is ${describeValue(data.text)}, expected a string`);
    const text = data.text.trim();
    if (text === "") return fail("text is empty");
    return { text: truncate(text, MAX_TEXT_CHARS), ...postDetails(data) };
  } catch (error) {
    return fail(`exception: ${describeError(error)}`);
  }
}

function describeInvokeError(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return describeValue(error);
  // Compared by name, not instanceof: the ESM and CJS builds of functions-js each have their own classes.
  const context: unknown = (error as { context?: unknown }).context;
  if (error.name === "FunctionsHttpError" || error.name === "FunctionsRelayError") {
    const status =
      isRecord(context) && typeof context.status === "number" ? `HTTP ${context.status}` : "unknown status";
    return `${error.name === "FunctionsRelayError" ? "relay error" : "function answered"} ${status}`;
  }
  if (error.name === "FunctionsFetchError") {
    return isAbort(context) ? timedOut(timeoutMs) : `network error: ${describeError(context)}`;
  }
  // An abort while the body is being read is not wrapped in a FunctionsFetchError.
  return isAbort(error) ? timedOut(timeoutMs) : describeError(error);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

function timedOut(timeoutMs: number): string {
  return `no answer within ${timeoutMs} ms`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The optional parts of a newer function's answer. Each is kept only when it is what it claims to be (the link only
 * as an http(s) address); a bad one is dropped, and the text is still shown.
 */
function postDetails(data: Record<string, unknown>): Omit<LatestPostBody, "text"> {
  const url = webUrl(data.url);
  const createdAt = isoDate(data.createdAt);
  return {
    ...(url ? { url } : {}),
    ...(isPostSource(data.source) ? { source: data.source } : {}),
    ...(createdAt ? { createdAt } : {}),
  };
}
