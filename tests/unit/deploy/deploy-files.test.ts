// deploy/compose.yaml must agree with the image it runs (no Docker engine here to try it): the same health check,
// the volume where the image keeps its data, the port Caddy is pointed at. The nginx site and the Caddyfile themselves
// run in front of the server in tests/e2e/reverse-proxy.spec.ts.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { dockerIgnores, envPairs, execForm, parseDockerfile } from "../../support/dockerfile";
import { ROOT } from "../../support/production-server";

const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

const runtime = parseDockerfile(read("Dockerfile")).at(-1)!;
const imageEnv = Object.fromEntries(
  runtime.instructions.filter((i) => i.keyword === "ENV").flatMap((i) => envPairs(i.args)),
);
const imageHealthcheck = execForm(runtime.instructions.find((i) => i.keyword === "HEALTHCHECK")!.args.slice(4));

interface Service {
  build?: string;
  image?: string;
  container_name?: string;
  restart?: string;
  env_file?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  logging?: { driver: string; options?: Record<string, string> };
}
const compose = parse(read("deploy/compose.yaml")) as {
  services: { app: Service; caddy: Service };
  volumes: Record<string, unknown>;
};
const { app, caddy } = compose.services;

describe("deploy/compose.yaml", () => {
  it("builds the image from the repository and restarts it unless stopped", () => {
    expect(path.resolve(ROOT, "deploy", app.build!)).toBe(ROOT);
    expect(app.restart).toBe("unless-stopped");
    expect(caddy.restart).toBe("unless-stopped");
  });

  it("keeps the app's data in a named volume where the image keeps it", () => {
    expect(imageEnv.DATA_DIR).toBe("/data");
    const [volume] = app.volumes ?? [];
    expect(volume).toBe(`portfolio-data:${imageEnv.DATA_DIR}`);
    expect(compose.volumes).toHaveProperty("portfolio-data");
  });

  it("names the app's container as the guides' commands do (docker exec portfolio …, docker cp portfolio:…)", () => {
    expect(app.container_name).toBe("portfolio");
    const guides = ["docs/newsletter.md", "docs/deployment.md", "scripts/subscribers.mjs"].map(read).join("\n");
    const named = [...guides.matchAll(/docker (?:exec|logs|stop|rm) (?:-[it]+ )?([\w.-]+)|docker cp ([\w.-]+):/g)].map(
      (match) => match[1] ?? match[2],
    );
    expect(named.length).toBeGreaterThanOrEqual(5);
    expect(new Set(named)).toEqual(new Set([app.container_name]));
  });

  it("keeps the automatic backups in a volume of their own, where the app writes them by default", () => {
    // BACKUP_DIR unset everywhere: the default, DATA_DIR/backups, is the mount point the image prepares.
    expect(app.environment?.BACKUP_DIR).toBeUndefined();
    expect(read("deploy/portfolio.env.example")).not.toMatch(/^BACKUP_DIR=./m);
    expect(app.volumes).toContain(`portfolio-backups:${imageEnv.DATA_DIR}/backups`);
    expect(compose.volumes).toHaveProperty("portfolio-backups");
    expect(read("Dockerfile")).toContain(
      `mkdir -p ${imageEnv.DATA_DIR}/backups && chown -R node:node ${imageEnv.DATA_DIR}`,
    );
  });

  it.each(["app", "caddy"] as const)("caps the %s container's log: rotated files of bounded size", (name) => {
    const { logging } = compose.services[name];
    expect(["json-file", "local"]).toContain(logging?.driver);
    const size = /^(\d+)([km])$/.exec(logging?.options?.["max-size"] ?? "");
    expect(size, "max-size").not.toBeNull();
    const bytes = Number(size![1]) * (size![2] === "m" ? 1024 * 1024 : 1024);
    const files = Number(logging?.options?.["max-file"]);
    expect(files).toBeGreaterThanOrEqual(1);
    // However much the site is hit, its log stays under 100 MB.
    expect(bytes * files).toBeLessThanOrEqual(100 * 1024 * 1024);
  });

  it("repeats the image's health check (podman's default format drops it) and starts Caddy once it passes", () => {
    expect(app.healthcheck?.test).toEqual(["CMD", ...imageHealthcheck!]);
    expect(caddy.depends_on).toEqual({ app: { condition: "service_healthy" } });
  });

  it("reads the settings from an env file the repository documents, and trusts the proxy", () => {
    expect(app.env_file).toBe("portfolio.env");
    const documented = new Set(read(".env.example").match(/^[A-Z_]+(?==)/gm));
    const example = read("deploy/portfolio.env.example").match(/^[A-Z_]+(?==)/gm) ?? [];
    expect(example).toContain("SESSION_SECRET");
    for (const name of example) expect(documented.has(name), name).toBe(true);
    expect(app.environment?.TRUST_PROXY).toBe("true");
    // Only Caddy reaches the app: nothing else may bypass it (and forge X-Forwarded-For).
    expect(app.ports).toBeUndefined();
  });

  it("puts Caddy in front: ports 80 and 443, the shipped Caddyfile, the app's port as upstream", () => {
    expect(caddy.ports).toEqual(expect.arrayContaining(["80:80", "443:443"]));
    expect(caddy.volumes).toContain("./Caddyfile:/etc/caddy/Caddyfile:ro");
    expect(existsSync(path.join(ROOT, "deploy/Caddyfile"))).toBe(true);
    expect(caddy.environment?.PORTFOLIO_UPSTREAM).toBe(`app:${imageEnv.PORT}`);
    expect(read("deploy/Caddyfile")).toMatch(/^\s*reverse_proxy \{\$PORTFOLIO_UPSTREAM:127\.0\.0\.1:3000\}$/m);
  });

  it("keeps the owner's env file out of git and the deploy files out of the image", () => {
    expect(read(".gitignore").split("\n")).toContain("deploy/portfolio.env");
    const ignored = dockerIgnores(read(".dockerignore"));
    expect(ignored("deploy/portfolio.env")).toBe(true);
    expect(ignored("deploy/compose.yaml")).toBe(true);
  });
});
