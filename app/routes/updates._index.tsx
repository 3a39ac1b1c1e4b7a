import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { publishedUpdates } from "~/updates/updates.server";
import { UpdatesFrame } from "~/components/updates-frame";
import { updatesPageMeta } from "~/sharing/updates-page-meta.server";
import { frameProps, updatesPageHeaders } from "~/updates/updates-page.server";
import { listItem } from "~/updates/update-view.server";
import { owner, updatesCopy } from "~/content/site";
import { fillIn } from "~/components/fill-in";
import { UpdatesErrorBoundary } from "~/components/updates-error";

export function loader(_args: LoaderFunctionArgs) {
  const now = new Date();
  return {
    updates: publishedUpdates(now).map(listItem),
    frame: frameProps(now),
    meta: updatesPageMeta(now, {
      title: fillIn(updatesCopy.listTitle, { name: owner.name }),
      description: fillIn(updatesCopy.listDescription, { name: owner.name }),
      path: "/updates",
      type: "website",
    }),
  };
}

export const meta: MetaFunction<typeof loader> = ({ data }) => data?.meta ?? [];

export const headers = updatesPageHeaders;

export default function UpdatesList() {
  const { updates, frame } = useLoaderData<typeof loader>();
  return (
    <UpdatesFrame frame={frame}>
      <h1 className="mt-6 text-4xl font-extrabold tracking-tight text-ink">{frame.copy.heading}</h1>
      <p className="mt-3 text-lg text-ink-soft">{frame.copy.intro}</p>
      {updates.length === 0 ? (
        <p className="mt-10 rounded-2xl border border-edge bg-surface p-6 text-ink-soft">{frame.copy.empty}</p>
      ) : (
        <ol className="mt-10 space-y-6">
          {updates.map((update) => (
            <li key={update.name}>
              <article className="rounded-2xl border border-edge bg-surface p-6 shadow-sm">
                <h2 className="text-xl font-bold text-ink">
                  <a href={update.path} className="text-link underline underline-offset-4 hover:no-underline">
                    {update.title}
                  </a>
                </h2>
                <p className="mt-1 text-sm text-ink-muted">
                  <time dateTime={update.date}>{update.dateText}</time>
                  {` · ${frame.copy.day} `}
                  {update.day}
                </p>
                {update.summary ? <p className="mt-3 text-ink-soft">{update.summary}</p> : null}
              </article>
            </li>
          ))}
        </ol>
      )}
    </UpdatesFrame>
  );
}

export const ErrorBoundary = UpdatesErrorBoundary;
