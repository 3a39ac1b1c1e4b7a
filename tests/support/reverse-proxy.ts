/**
 * Debian's nginx and Caddy, run as child processes in front of our production server with the files the owner is
 * given (deploy/nginx.conf, deploy/Caddyfile), adapted only where a test must differ from a server: loopback and free
 * ports instead of 80 and 443, a throwaway certificate, a temporary directory for everything either writes.
 * No test-runner import.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { ROOT, childEnv, freePort } from "./production-server";

// Debian's, as .ci/run installs them; elsewhere point these variables at yours (like CHROMIUM_PATH).
export const NGINX = process.env.NGINX_PATH ?? "/usr/sbin/nginx";
export const CADDY = process.env.CADDY_PATH ?? "/usr/bin/caddy";
export const OPENSSL = process.env.OPENSSL_PATH ?? "/usr/bin/openssl";

/** The name the browser uses for the site in these tests (Chromium resolves it to loopback by itself). */
export const SITE_NAME = "localhost";

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export interface RunningProxy {
  /** `https://localhost:<port>`: the site as the visitor reaches it. */
  url: string;
  /** `http://localhost:<port>`: the plain-HTTP port, which only redirects. */
  httpUrl: string;
  httpsPort: number;
  output(): string;
  stop(): Promise<void>;
}

/** Replaces `search` (which must occur, so the shipped file and this adaptation cannot drift apart silently). */
function replaceIn(text: string, search: string | RegExp, replacement: string, file: string): string {
  const found = typeof search === "string" ? text.includes(search) : search.test(text);
  if (!found) throw new Error(`${file} no longer contains ${String(search)}: update tests/support/reverse-proxy.ts`);
  return typeof search === "string" ? text.split(search).join(replacement) : text.replace(search, replacement);
}

export interface NginxSiteOptions {
  httpPort: number;
  httpsPort: number;
  appPort: number;
  certificate: string;
  key: string;
  /** false drops the shipped `proxy_set_header Host` (and X-Forwarded-Host) lines: the mistake the app must survive. */
  passHost: boolean;
}

/** deploy/nginx.conf on loopback ports, with the test certificate and the test app as upstream. */
export function nginxSite(shipped: string, options: NginxSiteOptions): string {
  const file = "deploy/nginx.conf";
  let site = shipped;
  site = replaceIn(site, /^\s*listen \[::\]:\d+.*\n/gm, "", file);
  site = replaceIn(site, /^(\s*)listen 80;/m, `$1listen 127.0.0.1:${options.httpPort};`, file);
  site = replaceIn(site, /^(\s*)listen 443 /m, `$1listen 127.0.0.1:${options.httpsPort} `, file);
  site = replaceIn(site, /^(\s*)server_name example\.com;/gm, `$1server_name ${SITE_NAME};`, file);
  site = replaceIn(site, /^(\s*)ssl_certificate \S+;/m, `$1ssl_certificate ${options.certificate};`, file);
  site = replaceIn(site, /^(\s*)ssl_certificate_key \S+;/m, `$1ssl_certificate_key ${options.key};`, file);
  site = replaceIn(site, "proxy_pass http://127.0.0.1:3000;", `proxy_pass http://127.0.0.1:${options.appPort};`, file);
  // On 443 the redirect's target needs no port; on a test port it does.
  site = replaceIn(
    site,
    "https://$server_name$request_uri",
    `https://$server_name:${options.httpsPort}$request_uri`,
    file,
  );
  site = replaceIn(
    site,
    /^(\s*)proxy_set_header Host \$host;\n/m,
    options.passHost ? "$1proxy_set_header Host $host:$server_port;\n" : "",
    file,
  );
  // The older set-up without the Host line had no X-Forwarded-Host line either.
  site = replaceIn(
    site,
    /^(\s*)proxy_set_header X-Forwarded-Host \$host;\n/m,
    options.passHost ? "$1proxy_set_header X-Forwarded-Host $host:$server_port;\n" : "",
    file,
  );
  return site;
}

/** deploy/Caddyfile with the test's global options first and `tls internal` (Caddy's own CA) for the site. */
export function caddyfile(shipped: string, options: { httpPort: number; httpsPort: number; storage: string }): string {
  const file = "deploy/Caddyfile";
  // The HTTPS port in the site's address, not as https_port: Caddy's redirect from HTTP then keeps it.
  const site = replaceIn(shipped, /^example\.com \{$/m, `${SITE_NAME}:${options.httpsPort} {\n\ttls internal`, file);
  // No admin endpoint, no trust-store install, loopback only, and certificates under the test's directory.
  const global = [
    "{",
    "\tadmin off",
    "\tskip_install_trust",
    "\tdefault_bind 127.0.0.1",
    `\thttp_port ${options.httpPort}`,
    `\tstorage file_system ${options.storage}`,
    "}",
  ].join("\n");
  return `${global}\n\n${site}`;
}

/** A self-signed certificate for SITE_NAME, made with openssl. */
export function selfSignedCertificate(dir: string): { certificate: string; key: string } {
  const certificate = path.join(dir, "site.crt");
  const key = path.join(dir, "site.key");
  execFileSync(
    OPENSSL,
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "2",
      "-subj",
      `/CN=${SITE_NAME}`,
      "-addext",
      `subjectAltName=DNS:${SITE_NAME}`,
      "-keyout",
      key,
      "-out",
      certificate,
    ],
    { stdio: "pipe" },
  );
  return { certificate, key };
}

function spawnProxy(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let printed = "";
  child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return { child, output: () => printed, exited };
}

/** One HTTPS GET of `/healthz` through the proxy, certificate unchecked. */
function probe(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: "127.0.0.1",
        port,
        path: "/healthz",
        servername: SITE_NAME,
        headers: { Host: `${SITE_NAME}:${port}` },
        rejectUnauthorized: false,
        timeout: 2_000,
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(0));
  });
}

/** Waits until the proxy answers /healthz from the app with 200; bounded, and fails with the proxy's output. */
async function ready(child: ChildProcess, port: number, output: () => string, name: string) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before serving:\n${output()}`);
    }
    if ((await probe(port)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not serve /healthz within ${START_TIMEOUT_MS} ms:\n${output()}`);
}

function stopper(child: ChildProcess, exited: Promise<void>) {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
}

/** nginx (one worker, no daemon) with deploy/nginx.conf in front of the app on `appPort`; its files live in `dir`. */
export async function startNginx(dir: string, appPort: number, passHost: boolean): Promise<RunningProxy> {
  mkdirSync(dir, { recursive: true });
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const { certificate, key } = selfSignedCertificate(dir);
  const shipped = readFileSync(path.join(ROOT, "deploy/nginx.conf"), "utf8");
  writeFileSync(
    path.join(dir, "site.conf"),
    nginxSite(shipped, { httpPort, httpsPort, appPort, certificate, key, passHost }),
  );
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  writeFileSync(
    path.join(dir, "nginx.conf"),
    [
      "daemon off;",
      // Started as root, nginx would hand its worker to `nobody`, who cannot enter the test's private directory
      // (where responses too big for memory are buffered): the worker stays root here, as it is only a test.
      ...(process.getuid?.() === 0 ? ["user root root;"] : []),
      "worker_processes 1;",
      `pid ${path.join(dir, "nginx.pid")};`,
      "error_log stderr warn;",
      "events { worker_connections 128; }",
      "http {",
      "  access_log off;",
      `  ${temp("client_body")} ${temp("proxy")} ${temp("fastcgi")} ${temp("uwsgi")} ${temp("scgi")}`,
      `  include ${path.join(dir, "site.conf")};`,
      "}",
      "",
    ].join("\n"),
  );
  const spawned = spawnProxy(NGINX, ["-e", "stderr", "-p", dir, "-c", path.join(dir, "nginx.conf")], {
    PATH: process.env.PATH ?? "",
  });
  return running("nginx", spawned, httpPort, httpsPort);
}

/** A proxy once it answers on its HTTPS port: where it is, what it printed, how to stop it. */
async function running(
  name: string,
  { child, output, exited }: ReturnType<typeof spawnProxy>,
  httpPort: number,
  httpsPort: number,
): Promise<RunningProxy> {
  await ready(child, httpsPort, output, name);
  return {
    url: `https://${SITE_NAME}:${httpsPort}`,
    httpUrl: `http://${SITE_NAME}:${httpPort}`,
    httpsPort,
    output,
    stop: stopper(child, exited),
  };
}

/** Caddy with deploy/Caddyfile (`tls internal`) in front of the app on `appPort`; its files live in `dir`. */
export async function startCaddy(dir: string, appPort: number): Promise<RunningProxy> {
  mkdirSync(dir, { recursive: true });
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const shipped = readFileSync(path.join(ROOT, "deploy/Caddyfile"), "utf8");
  const config = path.join(dir, "Caddyfile");
  writeFileSync(config, caddyfile(shipped, { httpPort, httpsPort, storage: path.join(dir, "storage") }));
  const spawned = spawnProxy(CADDY, ["run", "--adapter", "caddyfile", "--config", config], {
    PATH: process.env.PATH ?? "",
    // Caddy keeps its autosaved config and data under these: the test's directory, not the machine's.
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, "config"),
    XDG_DATA_HOME: path.join(dir, "data"),
    PORTFOLIO_UPSTREAM: `127.0.0.1:${appPort}`,
  });
  return running("caddy", spawned, httpPort, httpsPort);
}

/** A reason to skip when `binary` is not installed here (CI installs them all: .ci/run). */
export function missingBinary(binary: string): string | undefined {
  if (existsSync(binary)) return undefined;
  return `${binary} is not installed (Debian: apt-get install nginx caddy openssl; .ci/run does)`;
}
