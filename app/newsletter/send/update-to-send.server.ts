// What a send needs before any mail: the update (a draft only as a test), and the list it goes to.
import type { Outbox } from "~/mail/outbox.server";
import type { MailSettings } from "~/mail/settings.server";
import type { MailTransport } from "~/mail/transport.server";
import type { SubscriberList } from "~/newsletter/list/subscriber-list.server";
import { allUpdates, type Update, updatesFolder } from "~/updates/updates.server";
import type { Env } from "~/utils/env.server";

/** The owner's mistake, said in one message; `code` is the command's exit code. */
export class CommandError extends Error {
  override name = "CommandError";
  constructor(
    message: string,
    readonly code = 2,
  ) {
    super(message);
  }
}

/** The update of that name; a draft only when it is a test. Throws a CommandError naming what is wrong. */
export function updateToSend(name: string, { test }: { test: boolean }): Update {
  // allUpdates throws for a bad file, naming the file and the field: that message is the command's.
  const updates = allUpdates();
  const update = updates.find((candidate) => candidate.name === name);
  if (!update) {
    const names = updates.map((candidate) => `  ${candidate.name}${candidate.draft ? " (draft)" : ""}`);
    throw new CommandError(
      [
        `No update named ${JSON.stringify(name)} in ${updatesFolder()}.`,
        ...(names.length ? ["The updates:", ...names] : []),
      ].join("\n"),
    );
  }
  if (update.draft && !test) {
    throw new CommandError(
      `${name} is a draft (draft: true): it goes to no reader. Send yourself a copy with --test <address>, ` +
        "or remove `draft: true` from its front matter to send it.",
    );
  }
  return update;
}

/** Where the command's list comes from: the composition root (app/server-build/composition.server.ts). */
export interface ListSource {
  readonly usesSupabase: boolean;
  list(): SubscriberList;
}

/** What the update commands take from the composition root: the same settings, outbox and transport as the server's. */
export interface SendServices extends ListSource {
  /** The one reading of the environment, which the mail settings come from too. */
  readonly settings: Env;
  readonly mail: MailSettings;
  /** The outbox, created when it does not exist yet. */
  outbox(): Outbox;
  /** The outbox when its file exists, else null (a reader that must not create it). */
  existingOutbox(): Outbox | null;
  /** The one transport (throws when mail is off: check the mode first). */
  transport(): MailTransport;
}

/**
 * The list to read: the embedded one, or Supabase with the service role key given to this command only. Throws a
 * CommandError saying where the key goes when it is missing.
 */
export function listToRead(
  running: ListSource,
  settings: Pick<Env, "SUPABASE_URL" | "SUPABASE_SERVICE_ROLE_KEY">,
): SubscriberList {
  if (running.usesSupabase && (!settings.SUPABASE_URL || !settings.SUPABASE_SERVICE_ROLE_KEY)) {
    throw new CommandError(
      "The list lives in Supabase, and reading it takes the service role key, which only this command is given:\n" +
        "  SUPABASE_SERVICE_ROLE_KEY=<key> npm run newsletter -- send <name>\n" +
        "(Supabase dashboard → Project Settings → API keys; never put it in the web server's environment.)",
    );
  }
  return running.list();
}
