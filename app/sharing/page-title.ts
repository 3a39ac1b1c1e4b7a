/** A page's title: its own name, then the site's when the root's data has it ("Unsubscribe · Alex Placeholder"). */
export const pageTitle = (page: string, site: string | undefined) => (site ? `${page} · ${site}` : page);
