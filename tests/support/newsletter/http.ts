/** A visitor without JavaScript, over plain HTTP: post the form, follow the redirect with the cookie, read the toast. */
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

export interface PageToast {
  role: string;
  type: string;
  message: string;
  description: string | null;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };
const decode = (html: string) => html.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, name: string) => ENTITIES[name]!);

/** The toast the server rendered into the page's live region (not the script's fallback template), or null. */
export function toastInPage(html: string): PageToast | null {
  const start = html.indexOf('id="toast-region"');
  if (start < 0) throw new Error("the page has no toast region");
  const end = html.indexOf("<template", start);
  const region = html.slice(start, end < 0 ? undefined : end);
  const toast = /<div role="(\w+)" data-toast="(\w+)"[^>]*>(.*?)<a /s.exec(region);
  if (!toast) return null;
  const paragraphs = [...toast[3]!.matchAll(/<p[^>]*>(.*?)<\/p>/gs)].map((match) => decode(match[1]!));
  return { role: toast[1]!, type: toast[2]!, message: paragraphs[0] ?? "", description: paragraphs[1] ?? null };
}

/** The name=value pair of the toast cookie a response sets, or null. */
export function toastCookie(response: Response): string | null {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith("__toast="));
  return cookie ? cookie.split(";")[0]! : null;
}

export interface PostResult {
  status: number;
  location: string | null;
  cookie: string | null;
}

export async function postForm(
  baseUrl: string,
  body: BodyInit,
  headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" },
): Promise<PostResult> {
  const response = await fetch(`${baseUrl}/?index`, {
    method: "POST",
    body,
    headers,
    redirect: "manual",
    duplex: "half",
  } as RequestInit);
  await response.arrayBuffer();
  return { status: response.status, location: response.headers.get("Location"), cookie: toastCookie(response) };
}

export interface PageResult {
  status: number;
  toast: PageToast | null;
  setCookies: string[];
}

export async function getHome(baseUrl: string, cookie?: string | null): Promise<PageResult> {
  const response = await fetch(`${baseUrl}/`, { headers: cookie ? { Cookie: cookie } : {} });
  const html = await response.text();
  return { status: response.status, toast: toastInPage(html), setCookies: response.headers.getSetCookie() };
}

/** Posts the sign-up form like a browser without JavaScript and returns the toast shown after the redirect. */
export async function subscribe(baseUrl: string, email: string, extra: Record<string, string> = {}) {
  const posted = await postForm(baseUrl, new URLSearchParams({ email, website: "", ...extra }));
  if (posted.status !== 303 || posted.location !== "/") {
    throw new Error(`expected a 303 to /, got ${posted.status} ${posted.location ?? ""}`);
  }
  return (await getHome(baseUrl, posted.cookie)).toast;
}

/** The addresses in an embedded store's file, in the order they were stored (read-only, beside the running server). */
export const storedEmails = (dataDir: string): string[] => emailsInFile(path.join(dataDir, "newsletter.sqlite"));

/** The addresses in a list file (the live one or a backup), in the order they were stored, read-only. */
export function emailsInFile(file: string): string[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("select email from newsletter_subscribers order by id").all() as { email: string }[]).map(
      (row) => row.email,
    );
  } finally {
    db.close();
  }
}

/** Why an embedded store's reader gets no mail (null when they do), read-only beside the running server. */
export function storedSuppression(dataDir: string, email: string): string | null {
  const db = new DatabaseSync(path.join(dataDir, "newsletter.sqlite"), { readOnly: true });
  try {
    const row = db.prepare("select suppressed_reason as r from newsletter_subscribers where email = ?").get(email);
    return (row as { r: string | null }).r;
  } finally {
    db.close();
  }
}
