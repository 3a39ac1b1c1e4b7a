// A reader's confirmation as they do it: the token from the mail's link, then the confirm page's button (a form post).

/** The token of the confirm link in a mail's text or HTML, or null. */
export const confirmTokenIn = (text: string) => /\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1] ?? null;

/** Presses 'Confirm' on the page the link opens: the status and the page. */
export async function pressConfirm(baseUrl: string, token: string) {
  const response = await fetch(`${baseUrl}/confirm?token=${token}`, {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { status: response.status, html: await response.text() };
}
