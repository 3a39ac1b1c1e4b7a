import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import type { ClientActionFunctionArgs, ShouldRevalidateFunction } from "@remix-run/react";
import { useActionData, useLoaderData, useOutletContext } from "@remix-run/react";
import { useEffect } from "react";
import { Footer } from "~/components/footer";
import { Hero } from "~/components/hero";
import { LatestPostCard } from "~/components/latest-post-card";
import { Showcase } from "~/components/showcase";
import { useShowToast } from "~/components/toast";
import { latestPostCopy, projects, siteContent } from "~/content/site";
import { getLatestPost } from "~/latest-post/latest-post.server";
import { challengeToday } from "~/utils/today.server";
import { jsonForScript, profilePage } from "~/sharing/structured-data.server";
import type { SignUpOutlet } from "~/components/sign-up";
import { NEWSLETTER_ACTION } from "~/newsletter/sign-up/form-names";
import { SOMETHING_WENT_WRONG_TOAST } from "~/newsletter/sign-up/messages";
import { isNoAnswer, NO_ANSWER } from "~/newsletter/sign-up/no-answer";
import { subscribeAction } from "~/newsletter/sign-up/sign-up-action.server";
import { services } from "~/server-build/services.server";
import { redirectWithToast } from "~/utils/toast.server";

export async function loader(_args: LoaderFunctionArgs) {
  const { days } = challengeToday();
  const post = await getLatestPost();
  // Serialized here, on the server: the page only places the text (see Index).
  const structuredData = jsonForScript(profilePage(siteContent));
  // The card's words travel with the card: a page without a post carries none of them.
  const latestPost = post ? { post, copy: latestPostCopy } : null;
  return { days, projects, latestPost, content: siteContent, structuredData };
}

/**
 * The newsletter form posts here: validate, store, then redirect back to "/" with a toast (app/newsletter/subscribe.server).
 *
 * Why the sign-up is a navigating `<Form>` rather than the `useFetcher` a sign-up usually gets: every answer, error or
 * success, is this redirect with the toast and Conform's reply in the flash cookie, read once by the root loader. The
 * toast lives in the root layout and must be in the server's HTML for a visitor without JavaScript, who must never
 * land on a POST result either; a fetcher's answer would stay with the fetcher, out of the root's reach, and the page
 * with JavaScript would take another path than the page without. The `clientAction` below and the two
 * `shouldRevalidate`s (here and in root.tsx) follow from it. The reasons in full: docs/decisions/008-one-flash-path.md.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const answer = await subscribeAction(request, context, services());
  if (answer.kind === "refused") return new Response(answer.text, { status: answer.status });
  return redirectWithToast(request, "/", answer.toast, answer.formReply);
}

/**
 * In the browser the post goes through here first. When no answer comes back from our action (offline, a dropped
 * connection, or a refusal before the action: the server's cross-site rule, a proxy's error page) there is no redirect
 * and no flashed toast: the page says so itself instead of falling into the error page.
 */
export async function clientAction({ serverAction }: ClientActionFunctionArgs) {
  try {
    return await serverAction<typeof action>();
  } catch (error) {
    // Remix throws Responses (redirects) on purpose; a failed fetch (TypeError) or an answer that did not come from
    // Remix (an Error carrying its text) is ours to handle.
    if (error instanceof Response || !(error instanceof Error)) throw error;
    console.warn("Newsletter: the sign-up got no answer from the action:", error.message.slice(0, 200));
    return { ...NO_ANSWER };
  }
}

// A sign-up changes nothing this loader returns (its answer comes through the root loader's flash).
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, formAction, defaultShouldRevalidate }) =>
  isNoAnswer(actionResult) || formAction === NEWSLETTER_ACTION ? false : defaultShouldRevalidate;

export default function Index() {
  const { days, projects, latestPost, content, structuredData } = useLoaderData<typeof loader>();
  const signUp = useOutletContext<SignUpOutlet>();
  const actionData = useActionData<typeof clientAction>();
  const showToast = useShowToast();

  useEffect(() => {
    if (isNoAnswer(actionData)) showToast(SOMETHING_WENT_WRONG_TOAST);
  }, [actionData, showToast]);

  return (
    <>
      {/* Data for search engines, not run by the browser (so outside script-src), and escaped so it cannot end the
          element early. */}
      <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: structuredData }} />
      <main>
        <Hero
          content={content}
          daysIn={days.daysIn}
          daysLeft={days.daysLeft}
          latestPost={
            latestPost ? (
              <LatestPostCard post={latestPost.post} profile={content.links.social} copy={latestPost.copy} />
            ) : null
          }
          getUpdates={signUp.getUpdates}
        />
        <Showcase projects={projects} projectSummary={content.projectSummary} copy={content.showcaseCopy} />
      </main>
      {signUp.dialog}
      <Footer
        content={content}
        daysIn={days.daysIn}
        progressPercent={days.progressPercent}
        lengthInDays={days.lengthInDays}
        year={Number(days.today.slice(0, 4))}
      />
    </>
  );
}
