// The Docker image, replayed once per test run (an `npm ci` and a build inside it take minutes) and shared by the
// files that test it: the first to ask replays it into the run's folder (tests/support/image-run.ts), the others wait
// for it. Its build context is a developer's checkout with everything each of those files needs planted: what a
// developer has lying around that must not be sent (docker-replay.test.ts) and the owner's week's update and welcome
// mail (weekly-routine.test.ts). Each file runs its own containers: a copy of the image's volume apiece.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { type ReplayedImage, type StageState, developerTree, inStage, replayImage, runtime } from "./docker-image";
import { ROOT, tempDir } from "./production-server";
import { WEEKLY_UPDATE } from "./weekly-doc";

/** A secret in the developer's `.env` files, which must reach neither the build context nor the image. */
export const PLANTED_SECRET = "planted-secret-that-must-never-reach-the-image-4242";

/** The developer's checkout: the repository, plus what a developer has and what the owner writes in a week. */
function plantedTree(work: string): string {
  const tree = developerTree(work);
  const plant = (file: string, content: string) => {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), content);
  };
  plant(".env", `SESSION_SECRET=${PLANTED_SECRET}\n`);
  plant(".env.local", `SUPABASE_ANON_KEY=${PLANTED_SECRET}\n`);
  plant("node_modules/stale/index.js", "module.exports = 'from the host';\n");
  plant("build/index.js", "throw new Error('a stale host build');\n");
  plant("public/build/stale.js", "stale\n");
  plant("data/newsletter.sqlite", "subscribers of the developer\n");
  plant(".git/HEAD", "ref: refs/heads/main\n");
  // Notes full of Tailwind utilities the site never uses: the stylesheet must not pick them up.
  plant("notes/ideas.md", "Try `bg-fuchsia-900 text-lime-300 skew-y-12` on the cards some day.\n");
  plant("npm-debug.log", "noise\n");
  // docs/weekly.md, 1. Write it (in the checkout), 3. commit it: the image is built from the checkout (4).
  if (WEEKLY_UPDATE) {
    plant(
      `app/content/updates/${WEEKLY_UPDATE}.md`,
      "---\ntitle: First launch\nsummary: The first project is live.\n---\n\nIt is out.\n\n## Next\n\nMore soon.\n",
    );
  }
  // The owner's welcome mail (docs/newsletter.md), which the image must carry too.
  plant("app/content/welcome.md", readFileSync(path.join(ROOT, "docs/examples/welcome.md"), "utf8"));
  return tree;
}

interface Stored {
  context: string;
  tree: string;
  states: [string, StageState][];
}

/** The run's image, with the planted checkout it was built from; replayed by the first caller of the run. */
export interface SharedImage extends ReplayedImage {
  tree: string;
  runtimeState: StageState;
}

/** Which of `names` appeared in `dir` first: on the folder's change events, not on a clock. */
function appeared(dir: string, names: string[]): Promise<string> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => look());
    function look() {
      const name = names.find((candidate) => existsSync(path.join(dir, candidate)));
      if (!name) return;
      watcher.close();
      resolve(name);
    }
    look();
  });
}

export async function sharedImage(): Promise<SharedImage> {
  const dir = inject("imageRunDir");
  if (!dir) throw new Error("no imageRunDir: run the image's tests through vitest.config.ts (its globalSetup)");
  const ready = path.join(dir, "image.json");
  const failed = path.join(dir, "failed.txt");
  let builder = true;
  try {
    mkdirSync(path.join(dir, "replaying"));
  } catch {
    builder = false;
  }
  if (builder) {
    try {
      const work = path.join(dir, "work");
      const tree = plantedTree(work);
      const { context, states } = await replayImage(work, tree);
      const stored: Stored = { context, tree, states: [...states] };
      writeFileSync(`${ready}.partial`, JSON.stringify(stored));
      renameSync(`${ready}.partial`, ready);
    } catch (error) {
      writeFileSync(failed, String(error instanceof Error ? error.message : error));
      throw error;
    }
  } else if ((await appeared(dir, ["image.json", "failed.txt"])) === "failed.txt") {
    throw new Error(`the image's replay failed in another test file:\n${readFileSync(failed, "utf8")}`);
  }
  const stored = JSON.parse(readFileSync(ready, "utf8")) as Stored;
  const states = new Map(stored.states);
  return { context: stored.context, tree: stored.tree, states, runtimeState: states.get(runtime.name)! };
}

/**
 * A container's own copy of the image's data volume (what `docker run` gives a new container), as the DATA_DIR to
 * run the image's server and commands with; whoever asks for it removes it.
 */
export function freshVolume(image: SharedImage, prefix: string): string {
  const volume = tempDir(prefix);
  cpSync(inStage(image.runtimeState, image.runtimeState.env.DATA_DIR!), volume, { recursive: true });
  return volume;
}
