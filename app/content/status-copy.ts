/**
 * The site's words when a visit goes wrong: the 404 page, the error pages (the app's and the server's own), and the
 * toast's close button. The owner's words live in site.ts; these are the site's, and as much the product's text.
 */
export const statusCopy = {
  notFound: { title: "Page not found", heading: "404", text: "Oops! Page not found" },
  failure: { heading: "Something went wrong", text: "Please try again later." },
  /** An update file the owner must mend (a draft with a mistake, a bad date): the details follow. */
  updateNeedsFix: "An update file needs a fix",
  returnHome: "Return to Home",
  dismissToast: "Dismiss notification",
} as const;
