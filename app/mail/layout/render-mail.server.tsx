// One look for every mail: the confirmation, an update, the owner's test copy of one, and the welcome. Each kind is
// one HTML part from the layout's components and one text part from the same words, wrapped for plain-text readers.
// Pure: what a composer knows goes in, `{ html, text }` comes out; subjects and headers stay the composer's.
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { CONFIRM_MAIL, PAGE_LINK, TEST_NOTE } from "~/content/mail-copy";
import { Brand, Button, Footer, MailDocument, Note, RenderedBody, SiteLink } from "~/mail/layout/components.server";
import { oneLine, SIGNATURE_SEPARATOR, wrapText } from "~/mail/layout/mail-text.server";
import { renderUpdateHtml, renderUpdateText } from "~/updates/markdown.server";

/** A body already rendered by the site's Markdown renderer (both forms), or the Markdown to render with it. */
export type MailBody = { html: string; text: string } | { markdown: string };

interface MailCommon {
  /** The owner's name: the mail's header, and who the footer says sends it. */
  ownerName: string;
  /** The site's address (SITE_URL): linked from every footer. */
  siteUrl: string;
}

export interface ConfirmationMailInput extends MailCommon {
  kind: "confirmation";
  /** The mail's subject, also the HTML document's title. */
  subject: string;
  /** The confirm page's link with the reader's token: a page with a button, never an action on a GET. */
  confirmUrl: string;
}

/** A mail to a reader on the list: it always carries their unsubscribe link. */
export interface ReaderMailInput extends MailCommon {
  /** `test` is an update's copy for the owner alone: it says so above the title. */
  kind: "update" | "test" | "welcome";
  /** The mail's heading (one line, whatever the source holds), also the document's title. */
  title: string;
  body: MailBody;
  /** Where the mail can be read on the site (the update's page; for the welcome, the list of updates). */
  pageUrl?: string;
  /** The reader's own unsubscribe link. */
  unsubscribeUrl: string;
}

export type MailInput = ConfirmationMailInput | ReaderMailInput;

export interface RenderedMail {
  html: string;
  text: string;
}

const htmlDocument = (node: ReactElement) => `<!doctype html>\n${renderToStaticMarkup(node)}\n`;

function confirmation(input: ConfirmationMailInput): RenderedMail {
  const site = new URL(input.siteUrl).host;
  const html = htmlDocument(
    <MailDocument title={oneLine(input.subject)}>
      <Brand ownerName={input.ownerName} />
      <h1>{CONFIRM_MAIL.heading}</h1>
      <p>{CONFIRM_MAIL.greeting}</p>
      <p>{CONFIRM_MAIL.asked(input.ownerName, site)}</p>
      <Button href={input.confirmUrl}>{CONFIRM_MAIL.button}</Button>
      <p>
        {CONFIRM_MAIL.copy}
        <br />
        <a href={input.confirmUrl}>{input.confirmUrl}</a>
      </p>
      <p>
        {CONFIRM_MAIL.lifetime}
        <br />
        {CONFIRM_MAIL.notYou} {CONFIRM_MAIL.ignore}
      </p>
      {/* To someone not on the list yet: nothing to unsubscribe from, only who sent it. */}
      <Footer>
        {input.ownerName}
        <br />
        <SiteLink siteUrl={input.siteUrl} />
      </Footer>
    </MailDocument>,
  );
  const text = [
    CONFIRM_MAIL.greeting,
    "",
    CONFIRM_MAIL.asked(input.ownerName, site),
    CONFIRM_MAIL.press,
    "",
    input.confirmUrl,
    "",
    CONFIRM_MAIL.lifetime,
    // Its own line, so the sentence that matters is never split by the wrapping.
    CONFIRM_MAIL.notYou,
    CONFIRM_MAIL.ignore,
    "",
    SIGNATURE_SEPARATOR,
    input.ownerName,
    input.siteUrl,
  ];
  return { html, text: `${wrapText(text.join("\n"))}\n` };
}

const bodyOf = (body: MailBody) =>
  "markdown" in body ? { html: renderUpdateHtml(body.markdown), text: renderUpdateText(body.markdown) } : body;

const subscribedBecause = (ownerName: string) =>
  `You get this mail because you subscribed to ${ownerName}'s updates at`;

function toReader(input: ReaderMailInput): RenderedMail {
  const title = oneLine(input.title);
  const body = bodyOf(input.body);
  const test = input.kind === "test";
  const html = htmlDocument(
    <MailDocument title={title}>
      <Brand ownerName={input.ownerName} />
      {test ? <Note>{TEST_NOTE}</Note> : null}
      <h1>{title}</h1>
      <RenderedBody html={body.html} />
      {input.pageUrl ? (
        <p>
          <a href={input.pageUrl}>{PAGE_LINK[input.kind]}</a>
        </p>
      ) : null}
      <Footer>
        {subscribedBecause(input.ownerName)} <SiteLink siteUrl={input.siteUrl} />.{" "}
        <a href={input.unsubscribeUrl}>Unsubscribe</a>
      </Footer>
    </MailDocument>,
  );
  const text = [
    ...(test ? [TEST_NOTE, ""] : []),
    title,
    "",
    body.text.trim(),
    "",
    ...(input.pageUrl ? [`${PAGE_LINK[input.kind]}:`, input.pageUrl, ""] : []),
    SIGNATURE_SEPARATOR,
    `${subscribedBecause(input.ownerName)} ${input.siteUrl}.`,
    "Unsubscribe:",
    input.unsubscribeUrl,
  ];
  return { html, text: `${wrapText(text.join("\n"))}\n` };
}

/** The mail's two parts in the one layout. */
export function renderMail(input: MailInput): RenderedMail {
  return input.kind === "confirmation" ? confirmation(input) : toReader(input);
}
