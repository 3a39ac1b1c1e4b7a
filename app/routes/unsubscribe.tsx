import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import type { loader as rootLoader } from "~/root";
import { tokenOf, unsubscribeAction } from "~/newsletter/unsubscribe/unsubscribe-action.server";
import { services } from "~/server-build/services.server";
import { pageTitle } from "~/sharing/page-title";
import { dropBody } from "~/utils/bounded-body.server";
import { unsubscribeCopy } from "~/content/site";

export async function loader({ request }: LoaderFunctionArgs) {
  // The token stays in the URL, where the link from the e-mail put it; the page only needs to know there is one.
  const token = tokenOf(request.url);
  // Only the words this page can show before its button is pressed; an answer brings its own (the action's data).
  return { token, copy: unsubscribeCopy.page, incomplete: token ? null : unsubscribeCopy.answers["incomplete-link"] };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A token in the URL (the mail's one-click link, RFC 8058, and the page's own form) says all: the body is never
  // read, so no body, however large, keeps a reader on the list. It is dropped after the unsubscribe.
  if (tokenOf(request.url) === null) {
    const { result, status } = await unsubscribeAction(request, context, services());
    return data({ result, message: unsubscribeCopy.answers[result] }, { status });
  }
  const { result, status } = await unsubscribeAction(withoutBody(request), context, services());
  await dropBody(request);
  return data({ result, message: unsubscribeCopy.answers[result] }, { status });
}

function withoutBody(request: Request): Request {
  const headers = new Headers(request.headers);
  for (const name of ["content-length", "content-type", "transfer-encoding"]) headers.delete(name);
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

// The page is for one reader at a time and must never show up in a search engine.
export const headers: HeadersFunction = () => ({ "X-Robots-Tag": "noindex", "Cache-Control": "no-store" });

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: pageTitle("Unsubscribe", site) }, { name: "robots", content: "noindex" }];
};

export default function Unsubscribe() {
  const { token, copy, incomplete } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const message = answer ? answer.message : incomplete;
  const canPost = token !== null && answer?.result !== "unsubscribed";

  return (
    <StatusPage
      heading={message?.title ?? copy.title}
      text={message?.text ?? copy.text}
      textRole={answer ? "status" : undefined}
    >
      {canPost ? (
        <Form method="post" action={`/unsubscribe?token=${token}`} className="mt-8">
          <input type="hidden" name="token" value={token} />
          <button type="submit" disabled={busy} className="btn-accent">
            {busy ? copy.busy : copy.button}
          </button>
        </Form>
      ) : null}
    </StatusPage>
  );
}
