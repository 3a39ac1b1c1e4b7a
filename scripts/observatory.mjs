// `npm run observatory`: grades the production server's headers with MDN's HTTP Observatory scanner
// (@mdn/mdn-http-observatory), run here against a local copy of the deployment docs/deployment.md describes: the
// production server with TRUST_PROXY=true behind a TLS-terminating front door that also redirects plain HTTP to HTTPS.
//
// The scanner is not a devDependency: its install script downloads a CA bundle from the internet, which fails on
// machines without that access. It is installed on first use, scripts off, into .cache/observatory. It then scans a
// host name; it tries http:// and https:// on the same host and port, so the front door serves both on one port
// (it tells them apart by the first byte). Its certificate is a throwaway self-signed one, trusted for the scan only
// through NODE_EXTRA_CA_CERTS, so the scanner verifies TLS as it would for a real site.
//
// Prints the grade, the score, each test's result and the headers; exits 1 below A+.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../tests/support/server-process.mjs";

const SCANNER_VERSION = "1.4.8";
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const cacheDir = path.join(root, ".cache", "observatory");
const scannerDir = path.join(cacheDir, "node_modules", "@mdn", "mdn-http-observatory");

function installScanner() {
  const manifest = path.join(scannerDir, "package.json");
  const preloadList = path.join(scannerDir, "conf", "hsts-preload.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version !== SCANNER_VERSION) {
    rmSync(cacheDir, { recursive: true, force: true });
  }
  if (existsSync(preloadList)) return;
  console.log(`Installing @mdn/mdn-http-observatory@${SCANNER_VERSION} into ${path.relative(root, cacheDir)} ...`);
  mkdirSync(cacheDir, { recursive: true });
  execFileSync(
    "npm",
    [
      "install",
      "--prefix",
      cacheDir,
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      `@mdn/mdn-http-observatory@${SCANNER_VERSION}`,
    ],
    { stdio: "inherit" },
  );
  // The skipped install script would have downloaded Chromium's HSTS preload list (used to excuse preloaded hosts
  // from the redirection test). A local test host is on no such list: an empty one is the truth here.
  writeFileSync(preloadList, "{}\n");
}

/** @param {string} dir */
function selfSignedCertificate(dir) {
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", key, "-out", cert],
      ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ],
    { stdio: "ignore" },
  );
  return { key, cert };
}

/**
 * The deployment's reverse proxy, in miniature: HTTPS is forwarded to the app with X-Forwarded-Proto/-For, plain
 * HTTP is redirected to HTTPS. One port for both.
 * @param {{ key: string, cert: string }} tls @param {number} appPort
 */
async function startFrontDoor(tls, appPort) {
  /** @type {http.RequestListener} */
  const forward = (req, res) => {
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: appPort,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-proto": "https", "x-forwarded-for": req.socket.remoteAddress },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      res.writeHead(502).end();
    });
    req.pipe(upstream);
  };
  const secure = https.createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, forward);
  const plain = http.createServer((req, res) => {
    res.writeHead(301, { Location: `https://${req.headers.host}${req.url}` }).end();
  });
  /** @param {net.Server} server @returns {Promise<number>} */
  const listen = (server) =>
    new Promise((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve(/** @type {net.AddressInfo} */ (server.address()).port)),
    );
  const [securePort, plainPort] = [await listen(secure), await listen(plain)];
  // The shared port hands each connection to the right server. A TLS handshake starts with a record of type 22.
  const front = net.createServer((socket) => {
    socket.once("data", (chunk) => {
      const target = net.connect(chunk[0] === 0x16 ? securePort : plainPort, "127.0.0.1");
      target.write(chunk);
      socket.pipe(target).pipe(socket);
      const end = () => {
        socket.destroy();
        target.destroy();
      };
      socket.once("error", end);
      target.once("error", end);
    });
  });
  const port = await listen(front);
  return {
    port,
    close: () => {
      for (const server of [front, secure, plain]) server.close();
      secure.closeAllConnections();
      plain.closeAllConnections();
    },
  };
}

/**
 * Runs the scanner's own command-line entry in a child process (asynchronously: the front door lives in this one).
 * @param {string} host @param {string} caFile
 * @returns {Promise<any>}
 */
function scan(host, caFile) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: caFile };
  // The scan stays on this machine: no proxy in between.
  for (const name of Object.keys(env)) if (/^(https?|all|no)_proxy$/i.test(name)) delete env[name];
  const child = spawn(process.execPath, [path.join(scannerDir, "src", "scan.js"), host], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once("exit", () => {
      try {
        resolve(JSON.parse(output));
      } catch {
        reject(new Error(`the scanner printed no result:\n${output}`));
      }
    });
  });
}

installScanner();
if (!existsSync(path.join(root, "build", "index.js")))
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });

const work = mkdtempSync(path.join(tmpdir(), "portfolio-observatory-"));
// Every other variable explicitly unset, so a developer's .env cannot point the scan at a real Supabase project.
const server = await startServer({
  env: { TRUST_PROXY: "true", SESSION_SECRET: randomBytes(32).toString("hex"), DATA_DIR: path.join(work, "data") },
});
const front = await startFrontDoor(selfSignedCertificate(work), Number(new URL(server.url).port));
let grade = "";
try {
  const host = `127.0.0.1:${front.port}`;
  const result = await scan(host, path.join(work, "cert.pem"));
  if (result.error) throw new Error(`the scanner failed: ${result.error}`);
  grade = result.scan.grade;
  console.log(
    `\nMDN HTTP Observatory ${SCANNER_VERSION} (algorithm ${result.scan.algorithmVersion}), https://${host}/`,
  );
  console.log(
    `Grade ${result.scan.grade}, score ${result.scan.score} (A+ from 100), tests passed ${result.scan.testsPassed}/${result.scan.testsQuantity}\n`,
  );
  for (const [name, test] of Object.entries(result.tests)) {
    const modifier = test.scoreModifier > 0 ? `+${test.scoreModifier}` : String(test.scoreModifier);
    console.log(`${test.pass ? "pass" : "FAIL"}  ${modifier.padStart(3)}  ${name.padEnd(30)} ${test.result}`);
  }
  console.log("\nResponse headers of /:");
  for (const [name, value] of Object.entries(result.scan.responseHeaders)) console.log(`  ${name}: ${value}`);
} finally {
  front.close();
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
if (grade !== "A+") {
  console.error(`\nGrade ${grade}: below A+.`);
  process.exit(1);
}
