// Where the feed is and what it is: for the pages' links (browser-safe) and the feed's route.
export const FEED_PATH = "/updates/feed.xml";
export const FEED_TYPE = "application/atom+xml";
