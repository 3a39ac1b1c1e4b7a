/** How much of a visitor-controlled value (a path, a header) a log line may quote. */
export const MAX_LOGGED_CHARS = 200;

/**
 * A visitor-controlled value made safe to quote in one log line: control characters escaped (a newline cannot forge a
 * second line), and cut at `max` characters with the original length said, so a 14 KB path costs ~200 bytes of log.
 */
export function logField(value: string, max = MAX_LOGGED_CHARS): string {
  const cut = value.length > max ? value.slice(0, max) : value;
  // JSON string syntax escapes quotes, backslashes and the C0 control characters; DEL, the C1 controls (a header
  // value arrives as Latin-1, so bytes 0x80–0x9F are such characters: NEL ends a line, CSI starts a terminal escape)
  // and the Unicode line separators are escaped too.
  const quoted = JSON.stringify(cut).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return value.length > max ? `${quoted}… (${value.length} chars)` : quoted;
}

/** Text from elsewhere (an error, another service's answer) as one short line: whitespace collapsed, cut at `max`. */
export function oneLine(text: string, max = 300): string {
  return truncate(text.replace(/\s+/g, " ").trim(), max);
}

/** A thrown value for one log line: the error's name and message only, whitespace collapsed, bounded. */
export function describeCause(cause: unknown): string {
  return oneLine(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause));
}

/**
 * A thrown value in full, for a line that must say where a call failed: the error's name, message and code (when the
 * message does not already hold it), then its causes, each in brackets; anything else described by its kind.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return describeValue(error);
  const cause = error.cause instanceof Error ? ` (${describeError(error.cause)})` : "";
  const code = (error as { code?: unknown }).code;
  const withCode = typeof code === "string" && !error.message.includes(code) ? ` [${code}]` : "";
  return `${error.name}: ${error.message}${withCode}${cause}`;
}

/** What a value is, never what it holds (it may be long, or private): "a string of 12 characters", "an object". */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string of ${value.length} characters`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${String(value)})`;
}

/** At most `max` characters (whole code points), the last one an ellipsis when something was cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

export interface LogThrottle {
  /** Whether `line` may be written now; identical lines beyond the allowance in one window are held back. */
  allow(line: string): { write: boolean; suppressedBefore: number };
}

/**
 * Rate-limits identical log lines: at most `perWindow` copies of one line per window. The next copy written after a
 * quiet window reports how many were held back, so a flood stays visible in the log without filling the disk.
 */
export function createLogThrottle({
  perWindow = 3,
  windowMs = 60_000,
  maxLines = 1_000,
  now = Date.now,
}: { perWindow?: number; windowMs?: number; maxLines?: number; now?: () => number } = {}): LogThrottle {
  const seen = new Map<string, { windowStart: number; count: number; suppressed: number }>();
  return {
    allow(line) {
      const at = now();
      let entry = seen.get(line);
      if (!entry || at - entry.windowStart >= windowMs) {
        const suppressedBefore = entry?.suppressed ?? 0;
        // Distinct lines are many in a scan of random paths: the memory is bounded, the oldest go first.
        if (!entry && seen.size >= maxLines) seen.delete(seen.keys().next().value as string);
        entry = { windowStart: at, count: 1, suppressed: 0 };
        seen.set(line, entry);
        return { write: true, suppressedBefore };
      }
      if (entry.count < perWindow) {
        entry.count += 1;
        return { write: true, suppressedBefore: 0 };
      }
      entry.suppressed += 1;
      return { write: false, suppressedBefore: 0 };
    },
  };
}

const throttle = createLogThrottle();

/**
 * Writes a warning about an odd or refused request: one short line, identical lines rate-limited. `kind`, when given,
 * is what is counted instead of the line, so a flood that varies the quoted path or address is still held back.
 */
export function warnThrottled(line: string, kind: string = line) {
  const { write, suppressedBefore } = throttle.allow(kind);
  if (!write) return;
  console.warn(suppressedBefore > 0 ? `${line} (${suppressedBefore} more like it held back)` : line);
}

export interface RateLimitedLogOptions {
  /** Lines written per window; past that they are only counted. */
  perWindow?: number;
  windowMs?: number;
  /** The one line that reports the lines held back in a window. */
  summary: (heldBack: number, seconds: number) => string;
  write?: (line: string) => void;
  now?: () => number;
}

/**
 * A log for one kind of line whose every copy differs (a 404 quotes its path): the first `perWindow` lines of a
 * window are written as they come, the rest are counted and reported in one line when the window ends. A person's
 * visit writes its few lines in full; a scan of random paths costs a dozen lines per window, not one per request.
 */
export function createRateLimitedLog({
  perWindow = 10,
  windowMs = 10_000,
  summary,
  write = console.warn,
  now = Date.now,
}: RateLimitedLogOptions): (line: string) => void {
  let windowStart = -Infinity;
  let written = 0;
  let heldBack = 0;
  let flush: NodeJS.Timeout | undefined;
  const report = () => {
    flush = undefined;
    if (heldBack > 0) write(summary(heldBack, Math.round((now() - windowStart) / 1000)));
    heldBack = 0;
  };
  return (line) => {
    const at = now();
    if (at - windowStart >= windowMs) {
      if (flush) {
        clearTimeout(flush);
        report();
      }
      windowStart = at;
      written = 0;
    }
    if (written < perWindow) {
      written += 1;
      write(line);
      return;
    }
    heldBack += 1;
    // The count is written when the window ends, even if the flood stops with it; the timer never holds the process.
    flush ??= setTimeout(report, windowStart + windowMs - at).unref();
  };
}

/** 404s: one line per missing path as a person meets them; a scan of thousands of paths writes a count instead. */
export const logNotFound = createRateLimitedLog({
  summary: (heldBack, seconds) => `${heldBack} more 404s in the last ${seconds} s`,
});
