// The owner's update command: `npm run newsletter -- <command>`. It loads the production build like the subscriber
// tools do (both through scripts/load-build.mjs), so it runs wherever the server does, inside the Docker image too:
//   docker exec -t portfolio npm run newsletter -- send 2026-11-24-first-launch   (-t: a progress bar)
// Progress and messages go to stderr; `status` and `--dry-run` print on stdout.
import { constants, setPriority } from "node:os";
import { parseArgs } from "node:util";
import { fail, loadBuild, loadEnv, onClosedPipe } from "./load-build.mjs";

const USAGE = `Usage: npm run newsletter -- <command>

  send <name>                  sends the update (app/content/updates/<name>.md) to every reader, once each;
                               run it again after any stop: it goes on where it was
    --test <address>           sends one copy, marked as a test, to that address only (drafts too); records nothing
    --dry-run                  prints the recipients (masked), the subject and the text part; sends nothing
    --resend-uncertain         sends again the mails a stopped sender left uncertain (they may have arrived)
    --not-served-ok            sends even though the site does not serve the update's page yet
  status                       every update: not sent, sending, or sent to N of M, and when
  check                        before the first send: MAIL_FROM's SPF, DKIM, DMARC and MX, and the relay's STARTTLS,
                               each with its fix (docs/newsletter.md#before-the-first-send)`;

loadEnv();
// Visitors first: on the server's machine a send at full speed competes with it for the CPU, so the command asks the
// scheduler for less (the send's pace is the relay's limit, not the CPU).
try {
  setPriority(constants.priority.PRIORITY_LOW);
} catch {
  // Refused (some containers): the send goes on at the usual priority.
}

/** @type {ReturnType<typeof parseArgs>} */
let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      test: { type: "string" },
      "dry-run": { type: "boolean" },
      "resend-uncertain": { type: "boolean" },
      "not-served-ok": { type: "boolean" },
      help: { type: "boolean" },
    },
  });
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`, 2);
}
const [command, ...rest] = parsed.positionals;
if (!command || command === "help" || parsed.values.help) fail(USAGE, command || parsed.values.help ? 0 : 2);

const hooks = await loadBuild();
const { newsletterTool } = hooks;

// Ctrl-C, a closed terminal or a stop: no new mail is claimed, the ones in flight finish and are recorded, and what
// is left stays queued for the next run (or the web server). A second signal does not wait.
const abort = new AbortController();
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"])) {
  process.on(signal, () => {
    if (abort.signal.aborted) process.exit(130);
    abort.abort(signal);
  });
}
// Output piped into a reader that went away (`status | head`): a send goes on as when its terminal closes (the web
// server takes over), anything else ends quietly.
onClosedPipe(() => (command === "send" && !parsed.values["dry-run"] ? abort.abort("SIGHUP") : process.exit(0)));

let code = 0;
try {
  switch (command) {
    case "send": {
      const name = rest[0];
      if (!name || rest.length > 1) fail(`Usage: npm run newsletter -- send <name> [options]\n\n${USAGE}`, 2);
      const { test, "dry-run": dryRun, "resend-uncertain": resendUncertain } = parsed.values;
      const notServedOk = Boolean(parsed.values["not-served-ok"]);
      if (test !== undefined && (dryRun || resendUncertain)) fail("--test sends one copy: it goes alone.", 2);
      code = await newsletterTool.send(String(name), {
        ...(test !== undefined ? { test: String(test) } : {}),
        dryRun: Boolean(dryRun),
        resendUncertain: Boolean(resendUncertain),
        notServedOk,
        output: dryRun ? process.stdout : process.stderr,
        signal: abort.signal,
      });
      break;
    }
    case "status":
      if (rest.length > 0) fail("Usage: npm run newsletter -- status", 2);
      process.stdout.write(await newsletterTool.status());
      break;
    case "check":
      if (rest.length > 0) fail("Usage: npm run newsletter -- check", 2);
      code = await newsletterTool.check();
      break;
    default:
      fail(`Unknown command: ${command}\n\n${USAGE}`, 2);
  }
} catch (error) {
  if (error instanceof newsletterTool.CommandError) code = error.code;
  else code = 1;
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await hooks.onShutdown();
}
process.exit(code);
