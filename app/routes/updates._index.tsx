import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { publishedUpdates } from "~/updates/updates.server";
import { UpdatesFrame } from "~/updates/updates-frame";
import { updatesPageMeta } from "~/updates/update-meta.server";
import { frameProps, updatesPageHeaders } from "~/updates/updates-page.server";
import { listItem } from "~/updates/update-view.server";
import { owner } from "~/content/site";
import { UpdatesErrorBoundary } from "~/updates/updates-error";

export function loader(_args: LoaderFunctionArgs) {
  const now = new Date();
  return {
    updates: publishedUpdates(now).map(listItem),
    frame: frameProps(now),
    meta: updatesPageMeta(now, {
      title: `Updates · ${owner.name}`,
      description: `Every update of ${owner.name}'s 365-day challenge, newest first: what 'Get Updates' brings by mail.`,
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
      <h1 className="mt-6 text-4xl font-extrabold tracking-tight text-ink">Updates</h1>
      <p className="mt-3 text-lg text-ink-soft">What I send to readers who clicked &lsquo;Get Updates&rsquo;.</p>
      {updates.length === 0 ? (
        <p className="mt-10 rounded-2xl border border-edge bg-surface p-6 text-ink-soft">
          The first update is on its way.
        </p>
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
                  <time dateTime={update.date}>{update.dateText}</time> · Day {update.day}
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
