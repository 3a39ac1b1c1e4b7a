// The pieces of every mail's HTML part, as React components rendered once on the server: React's escaping is the only
// one, so a name, a title or an address can hold any character. The body of an update is the site's Markdown
// renderer's HTML (safe by construction: no raw HTML, only web and mail links), placed as it is.
import type { ReactNode } from "react";
import { INLINE, STYLE } from "~/mail/layout/theme.server";

export function MailDocument({ title, children }: { title: string; children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        {/* Addresses, dates and numbers stay text: iOS would otherwise make them links of its own. */}
        <meta name="format-detection" content="telephone=no, date=no, address=no, email=no" />
        <title>{title}</title>
        {/* A constant of this module, no input in it. */}
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body style={INLINE.body}>
        <div className="mail" style={INLINE.mail}>
          {children}
        </div>
      </body>
    </html>
  );
}

/** Who the mail is from, above everything else: the same on every mail. Text, not a link (the footer has the link). */
export function Brand({ ownerName }: { ownerName: string }) {
  return (
    <p className="brand" style={INLINE.brand}>
      {ownerName}
    </p>
  );
}

/** A link that looks like a button and is as wide as the mail, whatever the screen. */
export function Button({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p>
      <a className="button" href={href} style={INLINE.button}>
        {children}
      </a>
    </p>
  );
}

export function Note({ children }: { children: ReactNode }) {
  return (
    <p className="note" style={INLINE.note}>
      {children}
    </p>
  );
}

/** HTML made by the site's Markdown renderer: the only markup that is not built here. */
export function RenderedBody({ html }: { html: string }) {
  return <div className="body" dangerouslySetInnerHTML={{ __html: html }} />;
}

export function Footer({ children }: { children: ReactNode }) {
  return (
    <p className="foot" style={INLINE.foot}>
      {children}
    </p>
  );
}

/** The site's address as a reader sees it: its host name, linking to the site. */
export function SiteLink({ siteUrl }: { siteUrl: string }) {
  return <a href={siteUrl}>{new URL(siteUrl).hostname}</a>;
}
