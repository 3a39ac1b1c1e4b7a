import { describe, expect, it } from "vitest";
import { devUpdateError } from "~/updates/dev-error";
import { UpdateFileError } from "~/updates/update-files.server";

describe("what an updates page shows for an error", () => {
  const bad = new UpdateFileError("2025-10-02-broken.md", "title", "is missing");

  it("under npm run dev: a bad update file's line, naming the file and the reason", () => {
    expect(devUpdateError(bad, "development")).toBe("Update file 2025-10-02-broken.md: title is missing");
    // In the browser, Remix rebuilds the loader's error as a plain Error with its message (development only).
    expect(devUpdateError(new Error(bad.message), "development")).toBe(bad.message);
  });

  it("in production and in tests, nothing: the site's generic page stays", () => {
    expect(devUpdateError(bad, "production")).toBeNull();
    expect(devUpdateError(bad, "test")).toBeNull();
    expect(devUpdateError(bad, undefined)).toBeNull();
  });

  it("any other error goes on to the generic page, in development too", () => {
    expect(devUpdateError(new Error("ECONNREFUSED 127.0.0.1:5432"), "development")).toBeNull();
    expect(devUpdateError("Update file x.md: title is missing", "development")).toBeNull();
    expect(devUpdateError(new Error("Update file x.md: y\n    at secret (/srv/app.js:1:1)"), "development")).toBeNull();
  });
});
