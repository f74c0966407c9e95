/** One key of a TOML file: its dotted path (quotes taken off) and the value's text as written. */
export interface TomlKey {
  key: string;
  value: string;
}

/**
 * The keys a TOML file sets, for listing what a jj config file holds (vcs-scan.ts), never to
 * read values: table headers (`[a.b]`, `[[a.b]]`), `key = value` with dotted and quoted keys,
 * inline tables (their keys under the key's), and multi-line strings and arrays skipped as
 * values. It reads what it cannot parse as a key named after the line, so nothing is dropped
 * silently: a file it misreads lists more, never less.
 *
 * @example tomlKeys('[ui]\npager = "less"\n[merge-tools.x]\nprogram = "sh"') // [{key:"ui.pager",…},{key:"merge-tools.x.program",…}]
 */
export function tomlKeys(text: string): TomlKey[] {
  const keys: TomlKey[] = [];
  let table = "";
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[\[?\s*(.+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header !== null) {
      table = dottedKey(header[1] ?? "");
      continue;
    }
    const assignment = splitAssignment(line);
    if (assignment === undefined) {
      keys.push({ key: join(table, `(unreadable line ${i + 1})`), value: line });
      continue;
    }
    let value = assignment.value;
    // A value that goes on (multi-line string or array): its lines are part of it.
    while (continues(value) && i + 1 < lines.length) value += `\n${lines[++i] ?? ""}`;
    const key = join(table, dottedKey(assignment.key));
    keys.push({ key, value });
    if (value.trimStart().startsWith("{")) keys.push(...inlineKeys(key, value));
  }
  return keys;
}

/** `a."b.c".d` → `a.b.c.d` (a quoted part keeps its dots: enough to match prefixes). */
function dottedKey(text: string): string {
  return text
    .split(/\.(?=(?:[^"']|"[^"]*"|'[^']*')*$)/)
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"))
    .join(".");
}

function join(table: string, key: string): string {
  return table === "" ? key : `${table}.${key}`;
}

/** `key = value`, the `=` found outside quotes; undefined when there is none. */
function splitAssignment(line: string): { key: string; value: string } | undefined {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? "";
    if (quote !== "") quote = c === quote ? "" : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === "=") return { key: line.slice(0, i).trim(), value: line.slice(i + 1).trim() };
  }
  return undefined;
}

/** True while a value's brackets, braces or triple quotes are still open. */
function continues(value: string): boolean {
  for (const triple of ['"""', "'''"]) if ((value.split(triple).length - 1) % 2 === 1) return true;
  const plain = value.replace(/"(\\.|[^"\\])*"|'[^']*'/g, "").replace(/#.*$/gm, "");
  const open = (plain.match(/[[{]/g) ?? []).length;
  const closed = (plain.match(/[\]}]/g) ?? []).length;
  return open > closed;
}

/** The keys of an inline table `{ a = 1, b = { c = 2 } }`, under `prefix`. */
function inlineKeys(prefix: string, value: string): TomlKey[] {
  const body = value
    .trim()
    .replace(/^\{/, "")
    .replace(/\}\s*(#.*)?$/, "");
  const keys: TomlKey[] = [];
  for (const part of splitTopLevel(body)) {
    const assignment = splitAssignment(part);
    if (assignment === undefined) continue;
    const key = `${prefix}.${dottedKey(assignment.key)}`;
    keys.push({ key, value: assignment.value });
    if (assignment.value.startsWith("{")) keys.push(...inlineKeys(key, assignment.value));
  }
  return keys;
}

/** Splits on commas outside quotes, brackets and braces. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? "";
    if (quote !== "") quote = c === quote ? "" : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}
