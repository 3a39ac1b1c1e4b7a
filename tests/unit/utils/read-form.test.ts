import { describe, expect, it } from "vitest";
import { MAX_DRAIN_BYTES, MAX_FORM_BYTES, readForm } from "~/utils/read-form.server";

const URL_BASE = "http://localhost/?index";
const FORM_TYPE = "application/x-www-form-urlencoded";

/** A body without Content-Length, sent in chunks, as a chunked upload arrives. */
function streamed(totalBytes: number, chunkBytes = 16 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const size = Math.min(chunkBytes, totalBytes - sent);
      controller.enqueue(new Uint8Array(size).fill(0x61));
      sent += size;
    },
  });
}

function post(body: BodyInit | null, headers: Record<string, string> = { "Content-Type": FORM_TYPE }) {
  return new Request(URL_BASE, { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

describe("readForm", () => {
  it("parses an urlencoded form", async () => {
    const read = await readForm(post("email=ada%40example.com&website="));
    expect(read.kind).toBe("form");
    expect(read.kind === "form" && read.form.get("email")).toBe("ada@example.com");
  });

  it("parses a multipart form", async () => {
    const form = new FormData();
    form.set("email", "ada@example.com");
    const read = await readForm(new Request(URL_BASE, { method: "POST", body: form }));
    expect(read.kind === "form" && read.form.get("email")).toBe("ada@example.com");
  });

  it("accepts a body of exactly the cap", async () => {
    const body = `email=${"a".repeat(MAX_FORM_BYTES - "email=".length)}`;
    expect((await readForm(post(body))).kind).toBe("form");
  });

  it("refuses one byte over the cap", async () => {
    const body = `email=${"a".repeat(MAX_FORM_BYTES - "email=".length + 1)}`;
    expect((await readForm(post(body))).kind).toBe("too-large");
  });

  it("counts the bytes received when there is no Content-Length (1 MB, chunked)", async () => {
    const request = post(streamed(1_000_000));
    expect(request.headers.get("Content-Length")).toBeNull();
    expect((await readForm(request)).kind).toBe("too-large");
  });

  it("does not trust a Content-Length that understates the body", async () => {
    const request = post(streamed(100_000), { "Content-Type": FORM_TYPE, "Content-Length": "10" });
    expect((await readForm(request)).kind).toBe("too-large");
  });

  it("gives up on a body past the drain limit, declared or not", async () => {
    const declared = post("email=a", { "Content-Type": FORM_TYPE, "Content-Length": String(MAX_DRAIN_BYTES + 1) });
    expect((await readForm(declared)).kind).toBe("far-too-large");
    expect((await readForm(post(streamed(MAX_DRAIN_BYTES + 1)))).kind).toBe("far-too-large");
  });

  it.each([
    ["JSON", "application/json", '{"email":"ada@example.com"}'],
    ["plain text", "text/plain", "email=ada@example.com"],
    ["no content type", "", "email=ada@example.com"],
    ["multipart without a boundary", "multipart/form-data", "email=ada@example.com"],
  ])("calls %s not a form", async (_label, type, body) => {
    const headers: Record<string, string> = type ? { "Content-Type": type } : {};
    const request = new Request(URL_BASE, { method: "POST", body: new Blob([body]), headers });
    if (!type) expect(request.headers.get("Content-Type")).toBeNull();
    expect((await readForm(request)).kind).toBe("not-a-form");
  });

  it("treats an empty body as an empty form", async () => {
    const read = await readForm(post(null));
    expect(read.kind === "form" && [...read.form.keys()]).toEqual([]);
  });
});
