import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Footer } from "~/components/footer";
import { Hero } from "~/components/hero";
import { LatestPostCard } from "~/components/latest-post-card";
import { NewsletterDialog } from "~/components/newsletter-dialog";
import { Showcase } from "~/components/showcase";
import { challenge, projects } from "~/content/site";
import { getLatestPost } from "~/latest-post.server";
import { challengeDays } from "~/lib/challenge.server";
import { subscribeAction } from "~/newsletter.server";

export const NEWSLETTER_DIALOG_ID = "newsletter-dialog";

export async function loader(_args: LoaderFunctionArgs) {
  const days = challengeDays(new Date(), challenge);
  const latestPost = await getLatestPost();
  return json({ days, projects, latestPost });
}

/** The newsletter form posts here: validate, store, then redirect back to "/" with a toast (app/newsletter.server). */
export async function action({ request, context }: ActionFunctionArgs) {
  return subscribeAction(request, context);
}

export default function Index() {
  const { days, projects, latestPost } = useLoaderData<typeof loader>();
  return (
    <>
      <main>
        <Hero
          daysIn={days.daysIn}
          daysLeft={days.daysLeft}
          latestPost={latestPost ? <LatestPostCard text={latestPost.text} /> : null}
          newsletterDialogId={NEWSLETTER_DIALOG_ID}
        />
        <Showcase projects={projects} />
      </main>
      <NewsletterDialog id={NEWSLETTER_DIALOG_ID} />
      <Footer
        daysIn={days.daysIn}
        progressPercent={days.progressPercent}
        lengthInDays={days.lengthInDays}
        year={Number(days.today.slice(0, 4))}
      />
    </>
  );
}
