import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { owner, updatesCopy } from "~/content/site";
import { statusCopy } from "~/content/status-copy";
import { pageTitle } from "~/sharing/page-title";
import { fillIn } from "~/components/fill-in";
import { findPublishedUpdate, renderUpdateHtml } from "~/updates/updates.server";
import { UpdatesErrorBoundary } from "~/components/updates-error";
import { UpdatesFrame } from "~/components/updates-frame";
import { updatesPageMeta } from "~/sharing/updates-page-meta.server";
import { frameProps, updatesPageHeaders, updateNotFound } from "~/updates/updates-page.server";
import { listItem } from "~/updates/update-view.server";
import type { loader as rootLoader } from "~/root";

export function loader({ params, request }: LoaderFunctionArgs) {
  const now = new Date();
  // A draft, or an update whose day has not begun in Brussels, is no page: the same 404 as a name that never was.
  const update = findPublishedUpdate(params.name ?? "", now);
  if (!update) updateNotFound(request);
  const item = listItem(update);
  return {
    update: item,
    // Rendered here: the page carries HTML, not the Markdown and its renderer.
    html: renderUpdateHtml(update.markdown),
    frame: frameProps(now),
    meta: updatesPageMeta(now, {
      title: `${update.title} · ${owner.name}`,
      description:
        update.summary ??
        fillIn(updatesCopy.updateDescription, { name: owner.name, date: item.dateText, day: item.day }),
      path: item.path,
      type: "article",
    }),
  };
}

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ data, matches }) => {
  if (data) return data.meta;
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: pageTitle(statusCopy.notFound.title, site) }, { name: "robots", content: "noindex" }];
};

export const headers = updatesPageHeaders;

// The update's HTML comes from its Markdown through the one renderer (app/updates/markdown.server.ts), which lets no
// raw HTML, script, style or javascript: link through; the classes style the elements it produces.
const PROSE =
  "mt-8 text-lg leading-relaxed text-ink-body [&_a]:text-link [&_a]:underline [&_a]:underline-offset-4 " +
  "[&_blockquote]:mt-6 [&_blockquote]:rounded-r-lg [&_blockquote]:border-l-4 [&_blockquote]:border-edge-strong " +
  "[&_blockquote]:bg-surface-muted [&_blockquote]:py-2 [&_blockquote]:pl-4 [&_blockquote]:pr-4 " +
  "[&_blockquote]:italic [&_blockquote>:first-child]:mt-0 " +
  "[&_code]:rounded [&_code]:bg-surface-muted [&_code]:px-1 [&_code]:font-mono [&_code]:text-[0.9em] " +
  "[&_h2]:mt-10 [&_h2]:text-2xl [&_h2]:font-bold " +
  "[&_h2]:text-ink [&_h3]:mt-8 [&_h3]:text-xl [&_h3]:font-bold [&_h3]:text-ink [&_h4]:mt-6 [&_h4]:font-bold " +
  "[&_h5]:mt-6 [&_h5]:font-semibold [&_h6]:mt-6 [&_h6]:font-semibold " +
  "[&_hr]:my-8 [&_hr]:border-edge [&_li]:mt-2 [&_ol]:mt-4 [&_ol]:list-decimal [&_ol]:pl-6 [&_p]:mt-4 " +
  "[&_pre]:mt-4 [&_pre]:overflow-x-auto [&_pre]:rounded-lg [&_pre]:border [&_pre]:border-edge " +
  "[&_pre]:bg-surface-muted [&_pre]:p-4 [&_pre]:text-base [&_pre_code]:bg-transparent [&_pre_code]:p-0 " +
  "[&_table]:mt-4 " +
  "[&_td]:border [&_td]:border-edge [&_td]:px-3 [&_td]:py-1 [&_th]:border [&_th]:border-edge [&_th]:px-3 " +
  "[&_th]:py-1 [&_ul]:mt-4 [&_ul]:list-disc [&_ul]:pl-6";

export default function UpdatePage() {
  const { update, html, frame } = useLoaderData<typeof loader>();
  return (
    <UpdatesFrame frame={frame}>
      <p className="mt-6">
        <a href="/updates" className="inline-block py-2 text-sm font-semibold text-link underline underline-offset-4">
          {frame.copy.allUpdates}
        </a>
      </p>
      <article>
        <h1 className="mt-4 text-4xl font-extrabold tracking-tight text-ink">{update.title}</h1>
        <p className="mt-3 text-sm text-ink-muted">
          <time dateTime={update.date}>{update.dateText}</time>
          {` · ${frame.copy.day} `}
          {update.day}
        </p>
        <div className={PROSE} dangerouslySetInnerHTML={{ __html: html }} />
      </article>
    </UpdatesFrame>
  );
}

export const ErrorBoundary = UpdatesErrorBoundary;
