// Forged forwarding headers, clients that hang up mid-post and paths that try to leave the site, against the
// production server on loopback: a bounded answer every time, a few short log lines, never a stack.
import { rmSync, symlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { storedEmails, subscribe } from "../../support/newsletter/http";
import { ROOT } from "../../support/production-server";
import { serverForAll } from "../../support/shared-server";
import { rawRequest } from "../../support/raw-http";
import { STACK_LINE, post, expectSecurityHeaders } from "../../support/abuse";

describe("forged forwarding headers, hung-up clients and paths that try to leave the site", () => {
  const shared = serverForAll("portfolio-abuse-");

  // Remix's adapter reads X-Forwarded-Host's port whatever `trust proxy` says; these made it throw `Invalid URL`.
  it.each(["x:65536", "x:-1", "example.com,:65536"])(
    "ignores X-Forwarded-Host: %s when no proxy is trusted, on every route that reaches Express",
    async (forwardedHost) => {
      const before = shared.server.output().length;
      const headers = { "X-Forwarded-Host": forwardedHost };
      const answers = await Promise.all([
        fetch(`${shared.server.url}/healthz`, { headers }),
        fetch(`${shared.server.url}/?x=1`, { headers }),
        fetch(`${shared.server.url}/_root.data`, { headers }),
        post(`${shared.server.url}/?index`, headers, `forwarded-${forwardedHost.length}@example.com`),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 303]);
      for (const answer of answers) {
        expectSecurityHeaders(answer.headers);
        await answer.arrayBuffer();
      }
      expect(shared.server.output().slice(before)).not.toMatch(STACK_LINE);
    },
  );

  it("answers whatever throws with the site's own 500 page and the usual headers, in a few lines of log", async () => {
    // A fault Express itself reports (a symlink loop among the built files: ELOOP), not one Remix catches.
    const loop = path.join(ROOT, "public", "build", `loop-${process.pid}`);
    symlinkSync(path.basename(loop), loop);
    try {
      const before = shared.server.output().length;
      // The same loop under 20 names (its own and through 19 more links to it): 20 paths, 20 messages, one fault.
      const names = [path.basename(loop)];
      for (let i = 0; i < 19; i++) {
        const link = `${loop}-${i}`;
        symlinkSync(path.basename(loop), link);
        names.push(path.basename(link));
      }
      const answers = await Promise.all(names.map((name) => fetch(`${shared.server.url}/build/${name}`)));
      for (const answer of answers) {
        expect(answer.status).toBe(500);
        expectSecurityHeaders(answer.headers);
        expect(answer.headers.get("cache-control")).toBe("no-store");
        const page = await answer.text();
        expect(page).toContain("<h1>Something went wrong</h1>");
        expect(page).not.toContain("ELOOP");
      }
      const log = shared.server.output().slice(before);
      expect(log).not.toMatch(STACK_LINE);
      // 20 requests, each path (and so each message) different: one kind of fault, so 3 lines a minute.
      expect(log.split("\n").filter((line) => line.includes("ELOOP"))).toHaveLength(3);
    } finally {
      rmSync(loop, { force: true });
      for (let i = 0; i < 19; i++) rmSync(`${loop}-${i}`, { force: true });
    }
  });

  it("never redirects off the site, whatever the path holds", async () => {
    const targets = [
      "/\\evil.com/../build",
      "/\\\\evil.com/../build",
      "//evil.com/../build",
      "//evil.com",
      "/%5cevil.com/../build",
      "/%2f%2fevil.com/../build",
      "/%2fevil.com/%2e%2e/build",
      "/build%2f..%2f",
      "/build/../build",
      "/./build",
      "/build",
      "/build/",
    ];
    for (const target of targets) {
      const response = await rawRequest(
        shared.server.url,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close`,
      );
      expect(response.status, target).toBeGreaterThanOrEqual(200);
      expect(response.status, target).toBeLessThan(500);
      const location = response.headers["location"];
      if (location !== undefined) {
        expect(new URL(location, "http://127.0.0.1/").origin, `${target} → ${location}`).toBe("http://127.0.0.1");
      }
    }
  });

  it("takes a client hanging up mid-post with at most a few short lines, never a stack", async () => {
    const before = shared.server.output().length;
    const { hostname, port } = new URL(shared.server.url);
    // 20 sign-up posts that promise 200 bytes, send 20, and hang up.
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(port), hostname, () => {
              socket.write(
                "POST /?index HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                  "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\nemail=cut-off%40exam",
              );
              setTimeout(() => socket.destroy(), 100);
            });
            socket.on("error", () => {});
            socket.on("close", () => resolve());
          }),
      ),
    );
    // The server notices each hang-up on its own: wait for its word on them (either way), then a moment more.
    await shared.server.waitForOutput("cut off", 5_000).catch(() => shared.server.waitForOutput("unexpectedly", 1_000));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const log = shared.server.output().slice(before);
    expect(log).not.toMatch(STACK_LINE);
    expect(log).not.toContain("failed unexpectedly");
    expect(log.split("\n").filter(Boolean).length).toBeLessThanOrEqual(3);
    expect(storedEmails(shared.dataDir)).not.toContain("cut-off@exam");
  });

  it.each([
    ["a 100-character local part", `${"a".repeat(100)}@example.com`],
    ["a 70-character domain label", `ada@${"b".repeat(70)}.com`],
    ["a label ending in a hyphen", "a@x-.co"],
  ])("refuses an address with %s that the browser's type=email refuses", async (_label, email) => {
    expect(await subscribe(shared.server.url, email)).toMatchObject({
      message: "Invalid email",
      description: "Please enter a valid email address",
    });
    expect(storedEmails(shared.dataDir)).not.toContain(email);
  });
});
