import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseUpdateFile, readUpdateFiles, UpdateFileError } from "~/updates/update-files.server";

const good = "---\ntitle: Hello\nsummary: A summary\n---\n\nBody\n";

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UpdateFileError);
    return (error as Error).message;
  }
  throw new Error("expected an UpdateFileError");
}

describe("parseUpdateFile", () => {
  it("reads the name, the date from the file name, the front matter and the body", () => {
    expect(parseUpdateFile("2025-10-01-first-week.md", good)).toEqual({
      name: "2025-10-01-first-week",
      date: "2025-10-01",
      title: "Hello",
      summary: "A summary",
      draft: false,
      markdown: "\nBody\n",
    });
    const draft = parseUpdateFile("2025-10-02-x.md", "\uFEFF---\r\ntitle: ' T '\r\ndraft: true\r\n---\r\nB");
    expect(draft).toMatchObject({ title: "T", draft: true, markdown: "B" });
    expect(draft).not.toHaveProperty("summary");
  });

  it.each([
    ["2025-10-01.md", good, "2025-10-01.md: file name must be YYYY-MM-DD-<slug>.md"],
    ["2025-10-01-Upper.md", good, "file name must be"],
    ["2025-02-30-x.md", good, "2025-02-30-x.md: date 2025-02-30 is not a calendar date"],
    ["2025-13-01-x.md", good, "date 2025-13-01 is not a calendar date"],
    ["2025-10-01-x.md", "title: no front matter\n", "2025-10-01-x.md: front matter is missing"],
    ["2025-10-01-x.md", "---\ntitle: [unclosed\n---\n", "2025-10-01-x.md: front matter is not valid YAML"],
    ["2025-10-01-x.md", "---\n- a list\n---\n", "front matter must be fields"],
    ["2025-10-01-x.md", "---\nsummary: s\n---\n", "2025-10-01-x.md: title is missing"],
    ["2025-10-01-x.md", "---\ntitle: ''\n---\n", "title must be a non-empty text"],
    ["2025-10-01-x.md", "---\ntitle: 12\n---\n", "title must be a non-empty text"],
    ["2025-10-01-x.md", '---\ntitle: "a\\r\\nBcc: x@y.example"\n---\n', "title must be one line"],
    ["2025-10-01-x.md", `---\ntitle: ${"a".repeat(201)}\n---\n`, "title must be at most 200 characters"],
    ["2025-10-01-x.md", "---\ntitle: t\nsummary: [1]\n---\n", "summary must be a non-empty text"],
    ["2025-10-01-x.md", "---\ntitle: t\ndraft: yes please\n---\n", "draft must be true or false"],
    ["2025-10-01-x.md", "---\ntitle: t\ntitel: typo\n---\n", "titel is not a field of an update"],
    ["2025-10-01-x.md", "---\ntitle: t\ntitle: u\n---\n", "front matter is not valid YAML"],
    ["2025-10-01-x.md", "---\ntitle: &a t\nsummary: *a\n---\n", "front matter is not valid YAML"],
  ])("%s with %j: %s", (file, text, message) => {
    expect(errorOf(() => parseUpdateFile(file, text))).toContain(message);
  });
});

describe("readUpdateFiles", () => {
  const root = mkdtempSync(path.join(tmpdir(), "updates-files-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const folder = (name: string, files: Record<string, string>) => {
    const dir = path.join(root, name);
    mkdirSync(dir);
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    return dir;
  };

  it("lists every update, drafts included, newest first; other files are not updates", () => {
    const dir = folder("ok", {
      "2025-10-01-b.md": good,
      "2025-11-01-draft.md": "---\ntitle: D\ndraft: true\n---\n",
      "2025-10-01-c.md": good,
      "2025-09-30-a.md": good,
      ".gitkeep": "",
      "notes.txt": "not an update",
      ".2025-10-01-b.md.swp": "editor",
    });
    expect(readUpdateFiles(dir).map((update) => update.name)).toEqual([
      "2025-11-01-draft",
      "2025-10-01-c",
      "2025-10-01-b",
      "2025-09-30-a",
    ]);
  });

  it("has none in an empty or missing folder", () => {
    expect(readUpdateFiles(folder("empty", {}))).toEqual([]);
    expect(readUpdateFiles(path.join(root, "missing"))).toEqual([]);
  });

  it("names the bad file among good ones, and refuses an oversized one", () => {
    const dir = folder("bad", { "2025-10-01-good.md": good, "2025-10-02-bad.md": "---\ndraft: true\n---\n" });
    expect(errorOf(() => readUpdateFiles(dir))).toBe("Update file 2025-10-02-bad.md: title is missing");
    const big = folder("big", { "2025-10-01-big.md": good + "x".repeat(300 * 1024) });
    expect(errorOf(() => readUpdateFiles(big))).toContain("2025-10-01-big.md: file is over 256 KiB");
  });

  it("reads the shipped examples without error", () => {
    const updates = readUpdateFiles(path.resolve("app/content/updates"));
    expect(updates.filter((update) => !update.draft).length).toBeGreaterThanOrEqual(1);
  });
});

describe("npm run build's check (scripts/check-updates.mjs)", () => {
  const root = mkdtempSync(path.join(tmpdir(), "updates-check-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const check = (folder: string) =>
    spawnSync(process.execPath, ["scripts/check-updates.mjs", folder], { encoding: "utf8", timeout: 20_000 });

  it("passes the owner's folder and the test folder, counting drafts", () => {
    const result = check("tests/fixtures/updates/site");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe("Updates: 3 published, 1 draft(s) in tests/fixtures/updates/site\n");
    expect(check("app/content/updates").status).toBe(0);
  });

  it("fails on a bad file with one line naming the file and the field, no stack", () => {
    writeFileSync(path.join(root, "2025-10-01-bad.md"), "---\ntitle: t\ndraft: maybe\n---\n");
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("Update file 2025-10-01-bad.md: draft must be true or false");
  });
});
