// One call of a database function over PostgREST (POST /rest/v1/rpc/<name>), time-boxed, throwing with Supabase's
// words when it does not answer 2xx: the double opt-in and the suppression functions both go through it.
import type { SupabaseClient } from "@supabase/supabase-js";
import { describeCause } from "~/utils/log.server";
import { withinTimeBox } from "~/utils/time-box.server";

export type RpcCall = (name: string, args: Record<string, unknown>) => Promise<unknown>;

export function rpcCaller(client: SupabaseClient, timeoutMs: number): RpcCall {
  return async (name, args) => {
    const request = client.rpc(name, args).abortSignal(AbortSignal.timeout(timeoutMs));
    const { data, error, status } = await withinTimeBox(request, timeoutMs + 250, () => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
    if (error || status < 200 || status >= 300) {
      const code = error?.code ? ` ${String(error.code)}` : "";
      const message = error?.message ? `: ${describeCause(error.message)}` : "";
      throw new Error(`Supabase ${name} failed (HTTP ${status}${code})${message}`);
    }
    return data;
  };
}
