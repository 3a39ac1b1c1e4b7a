import type { SiteContent } from "~/content/site";

/**
 * The home page as a schema.org ProfilePage about the owner: who they are, where their picture is, and their
 * profiles elsewhere (`sameAs`), which lets search engines tie those accounts to this site.
 */
export function profilePage({ owner, links }: Pick<SiteContent, "owner" | "links">) {
  const url = new URL("/", owner.siteUrl).toString();
  return {
    "@context": "https://schema.org",
    "@type": "ProfilePage",
    url,
    mainEntity: {
      "@type": "Person",
      name: owner.name,
      description: owner.tagline,
      url,
      image: new URL(owner.photo.src, owner.siteUrl).toString(),
      sameAs: [links.social.href, links.code.href, links.professional.href],
    },
  };
}

// `<` would let a value close the script element ("</script>"), `>` and `&` matter to old parsers, and U+2028/2029
// end lines in older JavaScript: as \\u escapes they are the same JSON and nothing else.
const UNSAFE_IN_SCRIPT = /[<>&\u2028\u2029]/g;

/** `value` as JSON that is safe as the text of a `<script type="application/ld+json">` element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    UNSAFE_IN_SCRIPT,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
