// The owner's subscriber tools over the embedded store: `npm run subscribers -- <command>`. They load the production
// build (the same store code the server runs), so they work wherever the server does, inside the Docker image too:
//   docker exec portfolio npm run subscribers -- export --csv > subscribers.csv
// Data goes to stdout, everything else to stderr, so the output can be redirected to a file.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseEnv } from "node:util";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const USAGE = `Usage: npm run subscribers -- <command>

  count               how many addresses are on the list
  list                every address with the date it subscribed, oldest first
  export --csv        address, date and unsubscribe link, as CSV on stdout
  remove <address>    takes an address off the list (any letter case)
  backup <file>       a consistent copy of the list's database, safe while the server runs`;

/**
 * @param {string} message
 * @param {number} code
 * @returns {never}
 */
function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

// The same settings as the server: a local .env fills in what the environment leaves unset.
const envFile = path.join(root, ".env");
if (existsSync(envFile)) {
  for (const [name, value] of Object.entries(parseEnv(readFileSync(envFile, "utf8")))) process.env[name] ??= value;
}

const [command, ...args] = process.argv.slice(2);
if (!command || command === "help" || command === "--help") fail(USAGE, command ? 0 : 2);

const buildPath = path.join(root, "build", "index.js");
if (!existsSync(buildPath)) fail("No production build: run `npm run build` first.");

/** @type {typeof import("../server/build-entry")} build/index.js: what the app gives its tools (server/build-entry.ts) */
const hooks = await import(pathToFileURL(buildPath).href).then(
  (build) => build,
  (error) => fail(error instanceof Error && error.name === "EnvError" ? error.message : String(error)),
);
const { subscriberAdmin } = hooks;
if (subscriberAdmin.usesSupabase) {
  fail(
    [
      "The list lives in Supabase (SUPABASE_URL is set), not in this server's embedded store.",
      "Export it from the Supabase dashboard: Table Editor → newsletter_subscribers → Export → CSV, or in the SQL",
      "editor: select email, created_at, unsubscribe_token from newsletter_subscribers order by id;",
      "Remove an address there too. This tool never asks for the service key.",
    ].join("\n"),
    2,
  );
}

try {
  // Opened here, not when the build loads: a file that cannot be opened is named with its own problem.
  const store = /** @type {import("../app/newsletter/stores/sqlite.server").SqliteStore} */ (subscriberAdmin.store());
  switch (command) {
    case "count":
      process.stdout.write(`${store.count()}\n`);
      break;
    case "list":
      for (const row of store.list()) process.stdout.write(`${row.email}\t${row.createdAt}\n`);
      break;
    case "export":
      if (args[0] !== "--csv") fail("Usage: npm run subscribers -- export --csv > subscribers.csv", 2);
      process.stdout.write(subscriberAdmin.exportCsv());
      break;
    case "remove": {
      const address = args[0]?.trim();
      if (!address) fail("Usage: npm run subscribers -- remove <address>", 2);
      if (store.remove(address)) process.stderr.write(`Removed ${address} from the list.\n`);
      else fail(`${address} is not on the list.`);
      break;
    }
    case "backup": {
      const target = args[0];
      if (!target) fail("Usage: npm run subscribers -- backup <file>", 2);
      const copied = store.backup(target);
      process.stderr.write(`Copied ${copied} subscribers to ${path.resolve(target)}.\n`);
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
