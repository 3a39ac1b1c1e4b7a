// The sign-up form's names, apart from its texts: the root (which renders the dialog) needs these and none of the
// texts, and a module both the root and the home route import is a chunk of the home page's JavaScript of its own.

/** The sign-up form's name for Conform on the server: the key of its reply, flashed by the action and read by the page. */
export const NEWSLETTER_FORM_ID = "newsletter";

/** The dialog's element id: 'Get Updates' opens it (a popover target without JavaScript). */
export const NEWSLETTER_DIALOG_ID = "newsletter-dialog";

/** Where the form posts: the index route's action. */
export const NEWSLETTER_ACTION = "/?index";
