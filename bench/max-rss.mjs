// Loaded before a command the bench measures (`node --import bench/max-rss.mjs …`): as the process exits, its own peak
// resident memory (KiB, process.resourceUsage().maxRSS) goes to the file BENCH_MAX_RSS_FILE names. Exiting through
// process.exit() counts too; nothing is written to the command's own output.
import { writeFileSync } from "node:fs";

const target = process.env.BENCH_MAX_RSS_FILE;
if (target) process.on("exit", () => writeFileSync(target, String(process.resourceUsage().maxRSS)));
