import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import type { loader as rootLoader } from "~/root";
import { confirmAction, confirmTokenOf } from "~/newsletter/confirm/confirm-action.server";
import { services } from "~/server-build/services.server";
import { pageTitle } from "~/sharing/page-title";
import { confirmCopy } from "~/content/site";

// A GET never confirms: mail scanners open every link in a mail. The page only shows the button.
export async function loader({ request }: LoaderFunctionArgs) {
  // The words come with the data (app/content/site.ts), so editing them never changes the JavaScript bundles.
  const token = confirmTokenOf(request.url);
  // Only the words this page can show before its button is pressed; an answer brings its own (the action's data).
  return { token, copy: confirmCopy.page, incomplete: token ? null : confirmCopy.answers["incomplete-link"] };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { result, status } = await confirmAction(request, context, services());
  return data({ result, message: confirmCopy.answers[result] }, { status });
}

export const headers: HeadersFunction = () => ({
  "X-Robots-Tag": "noindex",
  "Cache-Control": "no-store",
  // The token is in the URL: no other site learns it from a link on this page.
  "Referrer-Policy": "no-referrer",
});

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: pageTitle("Confirm", site) }, { name: "robots", content: "noindex" }];
};

export default function Confirm() {
  const { token, copy, incomplete } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const message = answer ? answer.message : incomplete;
  const canPost = token !== null && (!answer || answer.result === "failed" || answer.result === "too-many-requests");

  return (
    <StatusPage
      heading={message?.title ?? copy.title}
      text={message?.text ?? copy.text}
      textRole={answer ? "status" : undefined}
    >
      {canPost ? (
        <Form method="post" action={`/confirm?token=${token}`} className="mt-8">
          <input type="hidden" name="token" value={token} />
          <button
            type="submit"
            disabled={busy}
            className="inline-flex min-h-11 items-center rounded-full bg-accent px-6 py-3 font-semibold text-white shadow hover:bg-accent-hover disabled:cursor-wait disabled:bg-accent-muted"
          >
            {busy ? copy.busy : copy.button}
          </button>
        </Form>
      ) : null}
      {answer?.result === "confirmed" || answer?.result === "already-confirmed" ? (
        // Not a dead end: what they signed up for is one link away.
        <Link to="/updates" className="btn-accent mt-8">
          {copy.latestUpdates}
        </Link>
      ) : null}
    </StatusPage>
  );
}
