/**
 * The words every mail carries around the owner's own (an update's or the welcome's Markdown): the confirmation mail,
 * the link to the page that holds a mail, and the note on a test copy.
 */

/** What a test copy says first, in both parts. */
export const TEST_NOTE = "This is a test copy: it was sent only to you, and no reader received it.";

/** The link to the page that holds the mail, by kind. */
export const PAGE_LINK = {
  update: "Read it on the site",
  test: "Read it on the site",
  welcome: "Read the updates so far",
} as const;

/** The confirmation mail (double opt-in). */
export const CONFIRM_MAIL = {
  subject: (ownerName: string) => `Confirm your subscription to ${ownerName}'s updates`,
  heading: "Confirm your subscription",
  greeting: "Hello,",
  asked: (ownerName: string, site: string) =>
    `Someone, hopefully you, asked to get ${ownerName}'s updates on ${site} at this address.`,
  press: "To confirm, open this link and press 'Confirm':",
  button: "Open the page to confirm",
  copy: "Or copy this link into your browser:",
  lifetime: "The link works for 7 days.",
  notYou: "If you did not ask for this,",
  ignore: "ignoring this mail is enough to stay off the list.",
};
