// The Dockerfile read, and the build context the replayed image was built from (tests/support/shared-image.ts): what
// a replay cannot show (the base image, USER, the volume's owner) is checked in the file itself. The image running:
// docker-replay.test.ts.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { execForm } from "../../support/dockerfile";
import { BASE_IMAGE, type StageState, inStage, instructions, runtime, stages } from "../../support/docker-image";
import { ROOT } from "../../support/production-server";
import { sharedImage } from "../../support/shared-image";

let context: string;
let states: Map<string, StageState>;

/** Every file of a directory tree, relative paths. */
function filesUnder(directory: string, relative = ""): string[] {
  return readdirSync(path.join(directory, relative), { withFileTypes: true }).flatMap((entry) => {
    const file = relative ? `${relative}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(directory, file) : [file];
  });
}

beforeAll(async () => {
  ({ context, states } = await sharedImage());
}, 600_000);

describe("the Dockerfile", () => {
  it("is multi-stage: dependencies, build, production dependencies, then a slim runtime", () => {
    expect(stages.map((stage) => `${stage.name} < ${stage.from}`)).toEqual([
      `deps < ${BASE_IMAGE}`,
      "build < deps",
      "prod-deps < deps",
      `runtime < ${BASE_IMAGE}`,
    ]);
    expect(instructions(stages[0]!, "RUN").map((i) => i.args)).toEqual([expect.stringMatching(/^npm ci\b/)]);
    // The build, then what the server reads from app/content gathered into one folder that always exists (the
    // welcome is optional, and Buildah refuses a COPY pattern that matches nothing).
    expect(instructions(stages[1]!, "RUN").map((i) => i.args)).toEqual([
      "npm run build",
      expect.stringMatching(/^mkdir -p owner-content && cp -R app\/content\/updates owner-content\/ && /),
    ]);
    for (const stage of stages) {
      for (const copy of instructions(stage, "COPY")) expect(copy.args, `line ${copy.line}`).not.toMatch(/[*?[]/);
    }
    expect(instructions(stages[2]!, "RUN").map((i) => i.args)).toEqual([
      expect.stringMatching(/^npm prune --omit=dev\b/),
      "node scripts/prune-production.mjs",
    ]);
  });

  it("runs the server in exec form, in production, as the node user, on port 3000", () => {
    expect(execForm(instructions(runtime, "CMD")[0]!.args)).toEqual(["node", "server/index.mjs"]);
    expect(instructions(runtime, "CMD")).toHaveLength(1);
    expect(states.get(runtime.name)!.env.NODE_ENV).toBe("production");
    expect(instructions(runtime, "USER").map((i) => i.args)).toEqual(["node"]);
    const user = instructions(runtime, "USER")[0]!;
    expect(user.line).toBeLessThan(instructions(runtime, "CMD")[0]!.line);
    expect(instructions(runtime, "EXPOSE").map((i) => i.args)).toEqual(["3000"]);
    expect(states.get(runtime.name)!.env.PORT).toBe("3000");
  });

  it("keeps DATA_DIR, and the backups' folder in it, on a volume that belongs to node", () => {
    const dataDir = states.get(runtime.name)!.env.DATA_DIR!;
    expect(dataDir).toMatch(/^\//);
    const volume = instructions(runtime, "VOLUME")[0]!;
    expect(execForm(volume.args)).toEqual([dataDir]);
    // Created and handed to node before VOLUME (after it, changes to the path are discarded).
    const prepare = instructions(runtime, "RUN").find((i) => i.args.includes(dataDir));
    expect(prepare?.args).toBe(`mkdir -p ${dataDir}/backups && chown -R node:node ${dataDir}`);
    expect(prepare!.line).toBeLessThan(volume.line);
    expect(existsSync(inStage(states.get(runtime.name)!, `${dataDir}/backups`))).toBe(true);
  });

  it("checks its health with Node against /healthz", () => {
    const [check] = instructions(runtime, "HEALTHCHECK");
    expect(check?.args.startsWith("CMD ")).toBe(true);
    expect(execForm(check!.args.slice(4))).toEqual(["node", "scripts/healthcheck.mjs"]);
    expect(readFileSync(path.join(ROOT, "scripts/healthcheck.mjs"), "utf8")).toContain("/healthz");
  });

  it("bakes no secret into the image", () => {
    for (const stage of stages) {
      for (const { keyword, args } of stage.instructions.filter((i) => ["ENV", "ARG"].includes(i.keyword))) {
        expect(`${keyword} ${args}`).not.toMatch(/SECRET|KEY|TOKEN|PASSWORD/i);
      }
    }
  });
});

describe("the build context", () => {
  it("leaves out secrets, dependencies, builds, data and the repository", () => {
    const files = filesUnder(context);
    expect(files).toContain("package-lock.json");
    expect(files).toContain("app/root.tsx");
    for (const file of files) {
      expect(file).not.toMatch(/^(\.env|node_modules\/|build\/|public\/build\/|data\/|\.git\/)/);
      expect(file).not.toMatch(/\.log$/);
    }
  });
});
