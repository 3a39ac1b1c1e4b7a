import { describe, expect, it } from "vitest";
import { decodeHtmlEntities, htmlToText } from "../../../supabase/functions/_shared/latest-post/html-text";
import {
  accountIdFrom,
  accountStatusesUrl,
  parseMastodonProfile,
  pickMastodonStatus,
} from "../../../supabase/functions/_shared/latest-post/mastodon";
import { account, ACCOUNT_ID, expectedPost, statuses } from "../../fixtures/latest-post/mastodon";

const older = statuses.find((status) => status.content === "<p>An older thought.</p>")!;

describe("pickMastodonStatus", () => {
  it("picks the owner's newest own public post, as plain text, with its address", () => {
    expect(pickMastodonStatus(statuses, ACCOUNT_ID)).toEqual(expectedPost);
  });

  it.each([
    ["a pinned older post", "113000000000000001"],
    ["a boost", "113500000000000010"],
    ["a reply", "113500000000000009"],
    ["a post behind a content warning", "113500000000000008"],
    ["a post marked sensitive", "113500000000000006"],
    ["an unlisted post", "113500000000000005"],
    ["an empty post", "113500000000000004"],
  ])("does not show %s over a newer or instead of an older own post", (_rule, id) => {
    const status = statuses.find((candidate) => candidate.id === id)!;
    const picked = pickMastodonStatus([status, older], ACCOUNT_ID);
    // The pinned post is older than "An older thought.", so it loses on date; the others are skipped outright.
    expect(picked?.text).toBe("An older thought.");
    if (id !== "113000000000000001") expect(pickMastodonStatus([status], ACCOUNT_ID)).toBeNull();
  });

  it("skips another account's post and a link that is not http(s)", () => {
    expect(pickMastodonStatus([older], "someone-else")).toBeNull();
    expect(pickMastodonStatus([{ ...older, url: "javascript:alert(1)", uri: "tag:x" }], ACCOUNT_ID)).toBeNull();
  });

  it("answers null for shapes that are not statuses, never throws", () => {
    for (const payload of [
      null,
      {},
      "x",
      [null, 1, { account: null }, { account: { id: ACCOUNT_ID }, visibility: "public" }],
    ]) {
      expect(pickMastodonStatus(payload, ACCOUNT_ID)).toBeNull();
    }
  });
});

describe("htmlToText", () => {
  it("turns line breaks and paragraphs into line breaks, drops every tag and what a script holds", () => {
    expect(htmlToText("<p>One<br>two<br/>three</p><p>Four</p>")).toBe("One\ntwo\nthree\n\nFour");
    expect(htmlToText('<p>a<script type="text/javascript">alert("x")</script>b<img src=x onerror=alert(1)>c</p>')).toBe(
      "abc",
    );
    expect(htmlToText("<p>Unclosed <b>bold <a href")).toBe("Unclosed bold");
  });

  it("decodes entities exactly once", () => {
    expect(htmlToText("<p>&amp;lt;script&amp;gt; &lt;b&gt; &quot;&#39;&#x27;&apos; &#127881; &nbsp;x</p>")).toBe(
      "&lt;script&gt; <b> \"''' 🎉 \u00a0x",
    );
    expect(decodeHtmlEntities("&#0; &#xD800; &#1114112; &unknown; &amp")).toBe(
      "&#0; &#xD800; &#1114112; &unknown; &amp",
    );
  });

  it("keeps the whole address of a link Mastodon shortens", () => {
    const html =
      '<a href="https://example.com/very/long/path"><span class="invisible">https://</span><span class="ellipsis">example.com/very/lo</span><span class="invisible">ng/path</span></a>';
    expect(htmlToText(html)).toBe("https://example.com/very/long/path");
  });
});

describe("profile and calls", () => {
  it("takes an https profile URL, or plain http on loopback only", () => {
    expect(parseMastodonProfile("https://mastodon.social/@alex")).toEqual({
      origin: "https://mastodon.social",
      username: "alex",
    });
    expect(parseMastodonProfile("http://127.0.0.1:8080/@alex/")).toEqual({
      origin: "http://127.0.0.1:8080",
      username: "alex",
    });
    for (const bad of [
      "http://mastodon.social/@alex",
      "https://mastodon.social/alex",
      "https://mastodon.social/@",
      "@alex@mastodon.social",
      "https://u:p@mastodon.social/@alex",
      "https://mastodon.social/@alex?x=1",
      "",
    ]) {
      expect(parseMastodonProfile(bad)).toBeNull();
    }
  });

  it("asks for statuses without replies and boosts, by the looked-up id", () => {
    expect(accountIdFrom(account)).toBe(ACCOUNT_ID);
    expect(accountIdFrom({ id: "../../admin" })).toBeNull();
    const url = new URL(accountStatusesUrl({ origin: "https://mastodon.social", username: "alex" }, ACCOUNT_ID));
    expect(url.pathname).toBe(`/api/v1/accounts/${ACCOUNT_ID}/statuses`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ exclude_replies: "true", exclude_reblogs: "true" });
  });
});
