import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { StatusPage } from "~/components/status-page";
import type { loader as rootLoader } from "~/root";
import { confirmAction, confirmTokenOf } from "~/newsletter/confirm/confirm-action.server";

// A GET never confirms: mail scanners open every link in a mail. The page only shows the button.
export async function loader({ request }: LoaderFunctionArgs) {
  return { token: confirmTokenOf(request.url) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { result, status } = await confirmAction(request, context);
  return data({ result }, { status });
}

export const headers: HeadersFunction = () => ({
  "X-Robots-Tag": "noindex",
  "Cache-Control": "no-store",
  // The token is in the URL: no other site learns it from a link on this page.
  "Referrer-Policy": "no-referrer",
});

export const meta: MetaFunction<typeof loader, { root: typeof rootLoader }> = ({ matches }) => {
  const site = matches.find((match) => match.id === "root")?.data?.meta.title;
  return [{ title: site ? `Confirm · ${site}` : "Confirm" }, { name: "robots", content: "noindex" }];
};

const MESSAGES = {
  confirmed: {
    title: "You're subscribed",
    text: "Thanks for confirming! You're on the list: you'll get updates on my 365-day challenge. Every mail has a link to unsubscribe.",
  },
  "already-confirmed": {
    title: "You're already on the list",
    text: "This link was used already: you confirmed, and you're on the list. Nothing more to do.",
  },
  expired: {
    title: "Confirm",
    text: "This link has expired or was already used. You can sign up again on the home page.",
  },
  "incomplete-link": {
    title: "Confirm",
    text: "This confirmation link is incomplete. Please use the whole link from the e-mail you received.",
  },
  "too-many-requests": { title: "Confirm", text: "Too many requests. Please try again in a minute." },
  failed: { title: "Confirm", text: "Something went wrong. Please try again later." },
} as const;

export default function Confirm() {
  const { token } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const message = answer ? MESSAGES[answer.result] : token ? null : MESSAGES["incomplete-link"];
  const canPost = token !== null && (!answer || answer.result === "failed" || answer.result === "too-many-requests");

  return (
    <StatusPage
      heading={message?.title ?? "Confirm your subscription"}
      text={message?.text ?? "One last step: press 'Confirm' to get updates on my 365-day challenge."}
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
            {busy ? "Confirming..." : "Confirm"}
          </button>
        </Form>
      ) : null}
      {answer?.result === "confirmed" || answer?.result === "already-confirmed" ? (
        // Not a dead end: what they signed up for is one link away.
        <Link to="/updates" className="btn-accent mt-8">
          Read the latest updates
        </Link>
      ) : null}
    </StatusPage>
  );
}
