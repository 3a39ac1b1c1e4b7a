// Just enough of Docker's file formats to replay our own Dockerfile without an engine: the instructions it uses, and
// .dockerignore's patterns (anchored at the context root, `*` within one path segment, `**` across, `!` to re-include).

export interface Instruction {
  keyword: string;
  /** `--name=value` options before the arguments (COPY --from, HEALTHCHECK --interval, ...). */
  flags: Record<string, string>;
  /** The arguments after the options, as written. */
  args: string;
  line: number;
}

export interface Stage {
  name: string;
  /** The image or earlier stage it starts from. */
  from: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    const first = index + 1;
    let logical = lines[index]!;
    if (/^\s*(#|$)/.test(logical)) continue;
    // A trailing backslash continues the instruction; comment lines inside it are dropped, as Docker does.
    while (/\\\s*$/.test(logical) && index + 1 < lines.length) {
      index += 1;
      const next = lines[index]!;
      logical = logical.replace(/\\\s*$/, " ") + (/^\s*#/.test(next) ? "" : next.trim());
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(logical.trim());
    if (!match) throw new Error(`Dockerfile line ${first}: cannot read ${JSON.stringify(logical)}`);
    const keyword = match[1]!.toUpperCase();
    let rest = match[2]!.trim();
    const flags: Record<string, string> = {};
    for (let flag = /^--([a-z-]+)=(\S+)\s+/.exec(rest); flag; flag = /^--([a-z-]+)=(\S+)\s+/.exec(rest)) {
      flags[flag[1]!] = flag[2]!;
      rest = rest.slice(flag[0].length);
    }
    const instruction: Instruction = { keyword, flags, args: rest, line: first };
    if (keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`Dockerfile line ${first}: cannot read FROM ${rest}`);
      stages.push({ name: from[2] ?? String(stages.length), from: from[1]!, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${first}: ${keyword} before FROM`);
    stage.instructions.push(instruction);
  }
  return stages;
}

/** `["node", "server/index.mjs"]` from an exec-form argument list; null for the shell form. */
export function execForm(args: string): string[] | null {
  if (!args.trim().startsWith("[")) return null;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) return null;
  return parsed;
}

/** `KEY=value` pairs of an ENV instruction (our Dockerfile uses no quotes). */
export function envPairs(args: string): [string, string][] {
  return args.split(/\s+/).map((pair) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s]*)$/.exec(pair);
    if (!match) throw new Error(`ENV ${args}: only unquoted KEY=value pairs are supported`);
    return [match[1]!, match[2]!];
  });
}

function patternToRegExp(pattern: string): RegExp {
  let source = "";
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!;
    if (char === "*" && pattern[index + 1] === "*") {
      // `**/` (or a final `**`) spans any number of directories, including none.
      source += pattern[index + 2] === "/" ? "(?:.*/)?" : ".*";
      index += pattern[index + 2] === "/" ? 2 : 1;
    } else if (char === "*") {
      source += "[^/]*";
    } else if (char === "?") {
      source += "[^/]";
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

/** Whether .dockerignore `text` leaves `file` (a path relative to the context, with `/`) out of the build context. */
export function dockerIgnores(text: string): (file: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const negated = line.startsWith("!");
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+/, "").replace(/\/+$/, "");
      return { negated, regexp: patternToRegExp(pattern) };
    });
  return (file) => {
    // A pattern that matches a directory covers everything in it.
    const parts = file.split("/");
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join("/"));
    let ignored = false;
    for (const rule of rules) {
      if (candidates.some((candidate) => rule.regexp.test(candidate))) ignored = !rule.negated;
    }
    return ignored;
  };
}
