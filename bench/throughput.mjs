// Throughput of `/`: autocannon against our server, and against nginx serving the very same HTML; the server's memory.
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { ACCEPT_GZIP, CONNECTIONS, DURATION_S, NGINX } from "./options.mjs";
import { answers, freePort, removeOnExit, startProcess, stopProcess, tempDir } from "./processes.mjs";

/** @param {string} url @param {number} seconds */
async function cannon(url, seconds) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: ACCEPT_GZIP });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** @param {string} html */
async function startNginx(html) {
  const dir = removeOnExit(tempDir("portfolio-bench-nginx-"));
  writeFileSync(path.join(dir, "index.html"), html);
  // The same compressed bytes we send, served by gzip_static: nginx does no work per request beyond sending a file.
  writeFileSync(path.join(dir, "index.html.gz"), gzipSync(html, { level: 9 }));
  const port = await freePort();
  const config = `
worker_processes 1;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  default_type text/html;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  gzip on;
  gzip_static on;
  gzip_vary on;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${dir};
    index index.html;
    add_header Cache-Control no-cache;
  }
}
`;
  writeFileSync(path.join(dir, "nginx.conf"), config);
  const url = `http://127.0.0.1:${port}/`;
  // Run as root, nginx's worker drops to an unprivileged user: it must be able to read the files.
  chmodSync(dir, 0o755);
  const args = ["-p", dir, "-e", path.join(dir, "error.log"), "-c", path.join(dir, "nginx.conf")];
  const nginx = await startProcess("nginx", NGINX, args, { PATH: process.env.PATH }, () => answers(url));
  // nginx prints its version on stderr.
  const version = spawnSync(NGINX, ["-v"], { encoding: "utf8" }).stderr.trim();
  return { ...nginx, url, version };
}

/** @param {import("node:child_process").ChildProcess} child */
function rssMiB(child) {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

/**
 * Ours (from the page cache), nginx with the same bytes, and ours rendering every request (a query string bypasses
 * the cache), with the server's memory after each of ours. Stops nginx; leaves the app running.
 * @param {{ url: string, child: import("node:child_process").ChildProcess }} app
 */
export async function measureThroughput(app) {
  // The minutes of Lighthouse can leave fetch a pooled connection the server has closed meanwhile: ask again once.
  const getHtml = () => fetch(`${app.url}/`, { headers: { "accept-encoding": "identity" } }).then((r) => r.text());
  const html = await getHtml().catch(getHtml);
  const nginx = await startNginx(html);
  await cannon(`${app.url}/`, 2); // warm-up
  const ours = await cannon(`${app.url}/`, DURATION_S);
  const rss = rssMiB(app.child);
  await cannon(nginx.url, 2);
  const staticServer = await cannon(nginx.url, DURATION_S);
  await stopProcess(nginx.child);
  const rendered = await cannon(`${app.url}/?bench=1`, DURATION_S);
  const rssAfterRendering = rssMiB(app.child);
  return {
    throughput: {
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      acceptEncoding: ACCEPT_GZIP["accept-encoding"],
      nginx: nginx.version,
      ours,
      static: staticServer,
      renderedEveryTime: rendered,
      ratio: Math.round((ours.requestsPerSecond / staticServer.requestsPerSecond) * 1000) / 1000,
    },
    rss,
    rssAfterRendering,
  };
}
