/*
 * The fenced blocks of a Markdown file that are (or claim not to be) Forage configs, so a test can
 * validate each with the real loader and the docs cannot drift from what the code accepts.
 *
 * A ```yaml, ```json or ```ts block is a whole config unless the line before its fence says
 * otherwise (an HTML comment, so readers of the rendered page do not see it):
 *   <!-- config: fragment -->                    part of a config; checked inside a whole one
 *   <!-- config: fragment in templates.work -->  the value at that path of a config; likewise
 *   <!-- config: none -->                        not a Forage config (output, another tool's file)
 * Other blocks (sh, nix, plain) are not configs and take no marker.
 */

/** Fence languages whose blocks are taken for configs. */
const configLanguages = new Set(["yaml", "yml", "json", "ts", "typescript"]);

export type SnippetKind = { kind: "whole" } | { kind: "fragment"; at: string[] } | { kind: "none" };

export interface Snippet {
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  text: string;
  check: SnippetKind;
}

const markerPattern = /^<!--\s*config:\s*(.*?)\s*-->$/;

/** What a marker comment says, or a message saying why it is not one the test knows. */
function parseMarker(body: string): SnippetKind | string {
  if (body === "none") return { kind: "none" };
  if (body === "fragment") return { kind: "fragment", at: [] };
  const at = /^fragment in ([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)$/.exec(body)?.[1];
  if (at !== undefined) return { kind: "fragment", at: at.split(".") };
  return `unknown marker "config: ${body}": use "config: fragment", "config: fragment in a.b" or "config: none"`;
}

/** The config blocks of `markdown`, and a `line: message` for each marker that is misplaced or unknown. */
export function readmeSnippets(markdown: string): { snippets: Snippet[]; problems: string[] } {
  const lines = markdown.split("\n");
  const snippets: Snippet[] = [];
  const problems: string[] = [];
  let pending: { line: number; body: string } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").trim();
    const marker = markerPattern.exec(line);
    if (marker !== null) {
      pending = { line: index + 1, body: marker[1] ?? "" };
      continue;
    }
    const fence = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (fence === null) {
      if (line !== "" && pending !== undefined) problems.push(`${pending.line}: a config marker must come right before a fence`);
      if (line !== "") pending = undefined;
      continue;
    }
    const close = lines.findIndex((candidate, at) => at > index && candidate.trim() === fence[1]);
    const end = close === -1 ? lines.length : close;
    const language = (fence[2] ?? "").toLowerCase();
    const check = pending === undefined ? { kind: "whole" as const } : parseMarker(pending.body);
    if (typeof check === "string") problems.push(`${pending?.line}: ${check}`);
    else if (!configLanguages.has(language)) {
      if (pending !== undefined) problems.push(`${pending.line}: a config marker before a \`${language || "plain"}\` block, which is never taken for a config`);
    } else snippets.push({ line: index + 1, language, text: lines.slice(index + 1, end).join("\n"), check });
    pending = undefined;
    index = end;
  }
  return { snippets, problems };
}
