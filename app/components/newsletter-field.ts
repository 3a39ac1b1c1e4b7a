import type { SubmissionResult } from "@conform-to/react";

/** What the action answered to the last sign-up (flashed across its redirect): its outcome and Conform's reply. */
export interface NewsletterReply {
  outcome: string;
  reply: SubmissionResult<string[]>;
}

export interface EmailField {
  id: string;
  name: "email";
  errorId: string;
  /** What the visitor sent, when the answer gives it back (an error); nothing after a success. */
  initialValue: string | undefined;
  /** The server's message for the address, if it refused it. */
  error: string | undefined;
}

/**
 * The address field of the dialog `dialogId` as the server's reply describes it: what Conform's `useForm` gave it,
 * read straight from the reply, so the browser needs none of Conform (its server side validates and writes the reply).
 */
export function emailField(dialogId: string, lastResult: NewsletterReply | null): EmailField {
  const id = `${dialogId}-email`;
  const sent = lastResult?.reply.initialValue?.email;
  const errors = lastResult?.reply.error?.email;
  return {
    id,
    name: "email",
    errorId: `${id}-error`,
    initialValue: typeof sent === "string" ? sent : undefined,
    error: errors?.[0],
  };
}
