// The Supabase stand-in of the tests (tests/support/stub-supabase/stub.ts), as its own process: it answers a latest post,
// and the benchmark makes its edge function hang for the page-time measure. The bench never reaches the list, so the
// stand-in starts without its database (PGlite would take seconds of the machine the bench measures).
import { startProcess } from "./processes.mjs";

export async function startSupabaseStub() {
  const stub = await startProcess(
    "stub-supabase",
    process.execPath,
    ["tests/support/stub-supabase/main.ts"],
    { ...process.env, STUB_PORT: "0", STUB_DATABASE: "off" },
    (output) => {
      const match = /ready at (\S+) anonKey=(\S+)/.exec(output);
      return match ? { url: match[1] ?? "", anonKey: match[2] ?? "" } : undefined;
    },
  );
  return { child: stub.child, ...stub.value };
}

/** @param {string} stubUrl @param {string} path @param {unknown} body */
export async function stubControl(stubUrl, path, body) {
  const response = await fetch(`${stubUrl}/__stub/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`stub ${path}: ${response.status} ${await response.text()}`);
}
