// The owner's subscriber tools over the embedded store: `npm run subscribers -- <command>`. They load the production
// build (the same store code the server runs), so they work wherever the server does, inside the Docker image too:
//   docker exec portfolio npm run subscribers -- export --csv > subscribers.csv
// Data goes to stdout, everything else to stderr, so the output can be redirected to a file.
import path from "node:path";
import { fail, loadBuild, loadEnv, onClosedPipe } from "./load-build.mjs";

const USAGE = `Usage: npm run subscribers -- <command>

  count               how many addresses are on the list (confirmed and pending apart, on stderr)
  list                every address with the date it subscribed, its state and when it confirmed, oldest first
  export --csv        address, date, unsubscribe link, state and confirmation time, as CSV on stdout
  show <address>      everything kept about one reader: sign-up, confirmation, page, the wording agreed to
  import <file> [--dry-run] [--yes]  brings readers from a Substack, Buttondown, Mailchimp, Kit or Ghost export, or
                      a file of one address a line: new, valid addresses come in confirmed; those the file says
                      left or bounced come in suppressed; --dry-run says what would happen and writes nothing; a
                      file that would suppress more than half its rows is written only with --yes; with the
                      list in Supabase, give this command SUPABASE_SERVICE_ROLE_KEY (never the web server)
  unsuppress <address>  lets a bounced (or import-suppressed) reader be mailed again, e.g. a mailbox that was full
  unsuppress --import <file>  lifts every suppression that importing <file> made (the file is read again)
  remove <address>    erases an address from the list and its mails from the outbox (any letter case)
  backup <file>       a consistent copy of the list's database, safe while the server runs
  backups             the backups in BACKUP_DIR (default DATA_DIR/backups), newest first, each checked
  restore <file>      brings a backup back: replaces a missing or damaged database (stop the server first), or
                      else puts back the addresses the list lacks (not readers who unsubscribed since); keeps a
                      copy of what it replaces; with the list in Supabase, 'backup' and 'restore' take
                      SUPABASE_SERVICE_ROLE_KEY like 'import' (restore then puts back what the list lacks)`;

loadEnv();
onClosedPipe();

const [command, ...args] = process.argv.slice(2);
if (!command || command === "help" || command === "--help") fail(USAGE, command ? 0 : 2);

const hooks = await loadBuild();
const { subscriberAdmin } = hooks;
// These reach a Supabase list, with the service role key given to this command (each says so without it); `backups`
// reads the backup folder only.
const SUPABASE_COMMANDS = ["import", "backup", "backups", "restore"];
if (subscriberAdmin.usesSupabase() && !SUPABASE_COMMANDS.includes(command)) fail(subscriberAdmin.supabaseHint, 2);

/** The live list, opened here rather than when the build loads: a file that cannot be opened says why itself. */
function open() {
  subscriberAdmin.open();
}

/** @param {number} n @param {string} one @param {string} [many] */
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

try {
  switch (command) {
    case "count":
      open();
      process.stdout.write(`${subscriberAdmin.count()}\n`);
      {
        const { confirmed, pending } = subscriberAdmin.countByState();
        const suppressed = subscriberAdmin.countSuppressed();
        const none = suppressed ? `, ${suppressed} suppressed (bounced or complained: no mail)` : "";
        process.stderr.write(`${confirmed} confirmed, ${pending} pending${none}\n`);
        const left = subscriberAdmin.leftCount();
        if (left) {
          process.stderr.write(
            `${plural(left, "mailbox", "mailboxes")} left the list (kept as a keyed hash: never mailed again unless they sign up and confirm)\n`,
          );
        }
        const mails = subscriberAdmin.confirmationMails();
        if (mails) {
          const waiting = mails.queued + mails.sending;
          const trouble =
            mails.failed || mails.uncertain ? `, ${mails.failed} failed, ${mails.uncertain} uncertain` : "";
          process.stderr.write(`confirmation mails: ${waiting} waiting, ${mails.sent} sent${trouble}\n`);
        }
      }
      break;
    case "list":
      open();
      for (const row of subscriberAdmin.list()) {
        const suppressed = row.suppression ? `\tsuppressed: ${row.suppression.reason} ${row.suppression.at}` : "";
        process.stdout.write(`${row.email}\t${row.createdAt}\t${row.state}\t${row.confirmedAt ?? ""}${suppressed}\n`);
      }
      break;
    case "export":
      if (args[0] !== "--csv") fail("Usage: npm run subscribers -- export --csv > subscribers.csv", 2);
      process.stdout.write(subscriberAdmin.exportCsv());
      break;
    case "remove": {
      const address = args[0]?.trim();
      if (!address) fail("Usage: npm run subscribers -- remove <address>", 2);
      open();
      const { removed, mails } = subscriberAdmin.remove(address);
      const outbox = mails > 0 ? ` and ${plural(mails, "mail")} from the outbox` : "";
      if (removed) process.stderr.write(`Removed ${address} from the list${outbox}.\n`);
      else
        fail(`${address} is not on the list.${mails > 0 ? ` Erased ${plural(mails, "mail")} from the outbox.` : ""}`);
      break;
    }
    case "show": {
      const address = args[0]?.trim();
      if (!address) fail("Usage: npm run subscribers -- show <address>", 2);
      open();
      const record = subscriberAdmin.show(address);
      const left = subscriberAdmin.leftOf(address);
      if (!record && left) fail(`${address} is not on the list; its mailbox left it (${left.reason} at ${left.at}).`);
      if (!record) fail(`${address} is not on the list.`);
      const lines = [
        ["address", record.email],
        ["state", record.state],
        ["signed up", record.signedUpAt],
        [
          "confirmed",
          record.confirmedAt ?? (record.state === "confirmed" ? "before confirmation by mail existed" : "not yet"),
        ],
        ["last confirmation mail asked for", record.confirmationRequestedAt ?? "none"],
        ["from page", record.page ?? "unknown (signed up before consent was recorded)"],
        ["wording version", record.wordingVersion ?? "unknown"],
        [
          "suppressed",
          record.suppression
            ? `${record.suppression.reason} at ${record.suppression.at}: ${record.suppression.detail}`
            : "no",
        ],
      ];
      if (left) lines.push(["mailbox left", `${left.reason} at ${left.at} (no mail until they sign up and confirm)`]);
      for (const [name, value] of lines) process.stdout.write(`${name}: ${value}\n`);
      if (record.wording) {
        process.stdout.write("wording agreed to:\n");
        for (const line of record.wording.split("\n")) process.stdout.write(`  ${line}\n`);
      }
      break;
    }
    case "import": {
      const parsed = subscriberAdmin.parseImportArgs(args);
      if ("error" in parsed)
        fail(`${parsed.error}\nUsage: npm run subscribers -- import <file> [--dry-run] [--yes]`, 2);
      const { file, dryRun, yes } = parsed;
      const result = await subscriberAdmin.import(file, { dryRun, yes }, process.stderr);
      process.exitCode = result.exitCode;
      break;
    }
    case "unsuppress": {
      if (args[0] === "--import") {
        if (!args[1] || args.length > 2) fail("Usage: npm run subscribers -- unsuppress --import <file>", 2);
        open();
        process.exitCode = await subscriberAdmin.unsuppressImport(args[1], process.stderr);
        break;
      }
      const address = args[0]?.trim();
      if (!address) fail("Usage: npm run subscribers -- unsuppress <address>", 2);
      open();
      const lifted = await subscriberAdmin.unsuppress(address);
      if (lifted.kind === "lifted") process.stderr.write(`${address} will get mail again.\n`);
      else if (lifted.kind === "refused") fail(`${address} stays suppressed: ${lifted.why}.`);
      else fail(`${address} is not suppressed (or not on the list).`);
      break;
    }
    case "backup": {
      const target = args[0];
      if (!target) fail("Usage: npm run subscribers -- backup <file>", 2);
      const copied = await subscriberAdmin.backup(target);
      process.stderr.write(`Copied ${plural(copied, "subscriber")} to ${path.resolve(target)}.\n`);
      break;
    }
    case "backups": {
      const listing = subscriberAdmin.backups();
      if (listing.length === 0) process.stderr.write(`No backups in ${subscriberAdmin.backupDir()} yet.\n`);
      for (const { file, bytes, modified, subscribers } of listing) {
        const holds = typeof subscribers === "number" ? plural(subscribers, "subscriber") : subscribers.problem;
        const size = `${Math.max(1, Math.round(bytes / 1024))} KiB`;
        process.stdout.write(`${file}\t${modified.toISOString()}\t${size}\t${holds}\n`);
      }
      break;
    }
    case "restore": {
      const source = args[0];
      if (!source)
        fail("Usage: npm run subscribers -- restore <backup file>  (see: npm run subscribers -- backups)", 2);
      const report = await subscriberAdmin.restore(source);
      const from = path.resolve(source);
      if (report.kind === "replaced") {
        const log = report.keptLog.length ? ` Its log was kept as ${report.keptLog.join(" and ")}.` : "";
        const kept = (report.keptAs ? ` It was kept as ${report.keptAs}.` : "") + log;
        process.stderr.write(
          `The list's database could not be used (${report.reason}).${kept}\n` +
            `Restored ${plural(report.subscribers, "subscriber")} from ${from}.\n` +
            "Start the server now (restart it if it is running: it still holds the old file).\n",
        );
      } else {
        const lines = [
          `Kept a copy of the list as it was (${plural(report.before, "subscriber")}): ${report.keptAs}`,
          `Put back ${plural(report.added.length, "address", "addresses")} from ${from}` +
            (report.added.length ? `: ${report.added.join(", ")}` : "."),
          `${plural(report.alreadyThere, "address", "addresses")} of the backup ${report.alreadyThere === 1 ? "was" : "were"} on the list already.`,
        ];
        if (report.unsubscribedSince) {
          lines.push(
            `Left out ${plural(report.unsubscribedSince, "reader")} who left the list (unsubscribed, complained or bounced) after the backup was made.`,
          );
        }
        // Supabase: the backup's record of who left, merged into the list's (never weakened).
        const tombstones = "tombstones" in report ? report.tombstones : null;
        if (tombstones?.added) {
          lines.push(
            `Brought back the record of ${plural(tombstones.added, "mailbox", "mailboxes")} that left the list.`,
          );
        }
        if (tombstones?.carried) {
          lines.push(
            `Carried the backup's record of ${plural(tombstones.carried, "mailbox", "mailboxes")} that left the list, ` +
              "made with another list's key: none of them comes back (see docs/newsletter.md, Restore).",
          );
        }
        lines.push(`The list now holds ${plural(report.after, "subscriber")}.`);
        process.stderr.write(`${lines.join("\n")}\n`);
      }
      break;
    }
    default:
      fail(`Unknown command: ${command}\n\n${USAGE}`, 2);
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
} finally {
  await hooks.onShutdown();
}
