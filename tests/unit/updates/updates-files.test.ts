import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    ["2025-10-01-x.md", "---\ntitle: t\ntime: 25:00\n---\n", "2025-10-01-x.md: time must be HH:MM"],
    ["2025-10-01-x.md", "---\ntitle: t\ntime: 9h30\n---\n", "time must be HH:MM (24-hour clock, Europe/Brussels)"],
    ["2025-10-01-x.md", "---\ntitle: t\ntime: 930\n---\n", "time must be HH:MM"],
  ])("%s with %j: %s", (file, text, message) => {
    expect(errorOf(() => parseUpdateFile(file, text))).toContain(message);
  });
});

describe("titles and summaries refuse characters that reorder or hide text", () => {
  // Bidi embeddings, overrides, isolates and marks; zero-width space, joiners, word joiner, a BOM inside the text.
  const characters = [
    ..."\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
    ..."\u200b\u200c\u200d\u2060\ufeff",
  ];
  it.each(characters.map((character) => [character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")]))(
    "U+%s, in the title and in the summary (quoted YAML escapes or raw)",
    (code) => {
      const raw = String.fromCodePoint(parseInt(code, 16));
      expect(errorOf(() => parseUpdateFile("2025-10-01-x.md", `---\ntitle: "pay\\u${code}gpj.exe"\n---\n`))).toBe(
        `Update file 2025-10-01-x.md: title must not contain invisible or text-direction characters (U+${code} found)`,
      );
      expect(errorOf(() => parseUpdateFile("2025-10-01-x.md", `---\ntitle: t\nsummary: a${raw}b\n---\n`))).toBe(
        `Update file 2025-10-01-x.md: summary must not contain invisible or text-direction characters (U+${code} found)`,
      );
    },
  );

  it("keeps every other script and symbol, right-to-left text included", () => {
    const title = "Café, 東京, עברית, العربية, emoji 🚀 – “quotes”";
    expect(parseUpdateFile("2025-10-01-x.md", `---\ntitle: ${title}\nsummary: ${title}\n---\n`)).toMatchObject({
      title,
      summary: title,
    });
  });
});

describe("time: the owner's order within a day", () => {
  it("reads HH:MM, quoted or not, as text; absent, there is none", () => {
    expect(parseUpdateFile("2025-10-01-x.md", "---\ntitle: t\ntime: 18:30\n---\n").time).toBe("18:30");
    expect(parseUpdateFile("2025-10-01-x.md", "---\ntitle: t\ntime: '7:05'\n---\n").time).toBe("07:05");
    expect(parseUpdateFile("2025-10-01-x.md", good)).not.toHaveProperty("time");
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

  it("orders a day's updates by time: (later first, none counts as 00:00), then by file name", () => {
    const timed = (time: string) => `---\ntitle: T\ntime: "${time}"\n---\n`;
    const dir = folder("same-day", {
      "2025-10-01-a.md": good,
      "2025-10-01-z-late.md": timed("23:00"),
      "2025-10-01-b.md": good,
      "2025-10-01-early.md": timed("08:00"),
      "2025-10-02-next.md": good,
      "2025-09-30-before.md": timed("23:59"),
    });
    expect(readUpdateFiles(dir).map((update) => update.name)).toEqual([
      "2025-10-02-next",
      "2025-10-01-z-late",
      "2025-10-01-early",
      "2025-10-01-b",
      "2025-10-01-a",
      "2025-09-30-before",
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

  it("counts a future-dated update as scheduled, naming its day", () => {
    const dir = path.join(root, "scheduled");
    mkdirSync(dir);
    cpSync("tests/fixtures/updates/site", dir, { recursive: true });
    writeFileSync(path.join(dir, "2999-01-01-later.md"), "---\ntitle: Later\n---\nSoon.\n");
    const result = check(dir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `Updates: 3 published, 1 scheduled (2999-01-01-later on 2999-01-01), 1 draft(s) in ${path.relative(process.cwd(), dir)}\n`,
    );
  });

  it("fails on a bad file with one line naming the file and the field, no stack", () => {
    writeFileSync(path.join(root, "2025-10-01-bad.md"), "---\ntitle: t\ndraft: maybe\n---\n");
    const result = check(root);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("Update file 2025-10-01-bad.md: draft must be true or false");
  });

  it("fails on a title that reads backwards (U+202E), naming the file and the field", () => {
    const dir = path.join(root, "bidi");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "2025-10-01-bidi.md"), "---\ntitle: Invoice \u202Efdp.exe\n---\n");
    const result = check(dir);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      "Update file 2025-10-01-bidi.md: title must not contain invisible or text-direction characters (U+202E found)",
    );
  });
});
