import { test as base, expect } from "@playwright/test";

/** Fails any test during which the page logs a console error or throws. */
export const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: [
    async ({ page }, use, testInfo) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      await use(errors);
      const expected = testInfo.annotations.some((annotation) => annotation.type === "expects-console-error");
      if (!expected) expect(errors, "console errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

export const jsEnabled = (projectName: string) => projectName === "js-on";
