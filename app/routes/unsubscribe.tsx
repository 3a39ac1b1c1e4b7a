import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import type { loader as rootLoader } from "~/root";
import { tokenOf, unsubscribeAction } from "~/newsletter/unsubscribe/unsubscribe-action.server";

export async function loader({ request }: LoaderFunctionArgs) {
  // The token stays in the URL, where the link from the e-mail put it; the page only needs to know there is one.
  return { token: tokenOf(request.url) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { result, status } = await unsubscribeAction(request, context);
  return data({ result }, { status });
}

// The page is for one reader at a time and must never show up in a search engine.
export const headers: HeadersFunction = () => ({ "X-Robots-Tag": "noindex", "Cache-Control": "no-store" });

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: site ? `Unsubscribe · ${site}` : "Unsubscribe" }, { name: "robots", content: "noindex" }];
};

const MESSAGES = {
  unsubscribed: {
    title: "You're unsubscribed",
    text: "You won't get any more updates from me. Changed your mind? You can sign up again on the home page.",
  },
  "incomplete-link": {
    title: "Unsubscribe",
    text: "This unsubscribe link is incomplete. Please use the whole link from the e-mail you received.",
  },
  "too-many-requests": { title: "Unsubscribe", text: "Too many requests. Please try again in a minute." },
  failed: { title: "Unsubscribe", text: "Something went wrong. Please try again later." },
} as const;

export default function Unsubscribe() {
  const { token } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const message = answer ? MESSAGES[answer.result] : token ? null : MESSAGES["incomplete-link"];
  const canPost = token !== null && answer?.result !== "unsubscribed";

  return (
    <StatusPage
      heading={message?.title ?? "Unsubscribe"}
      text={message?.text ?? "Stop getting updates on my 365-day challenge? One click and you are off the list."}
      textRole={answer ? "status" : undefined}
    >
      {canPost ? (
        <Form method="post" action={`/unsubscribe?token=${token}`} className="mt-8">
          <input type="hidden" name="token" value={token} />
          <button type="submit" disabled={busy} className="btn-accent">
            {busy ? "Unsubscribing..." : "Unsubscribe"}
          </button>
        </Form>
      ) : null}
    </StatusPage>
  );
}
