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

/** A config block and how it is checked. */
export type Snippet = Omit<FencedBlock, "marker"> & { check: SnippetKind };

const markerPattern = /^<!--\s*config:\s*(.*?)\s*-->$/;

/** What a marker comment says, or a message saying why it is not one the test knows. */
function parseMarker(body: string): SnippetKind | string {
  if (body === "none") return { kind: "none" };
  if (body === "fragment") return { kind: "fragment", at: [] };
  const at = /^fragment in ([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)$/.exec(body)?.[1];
  if (at !== undefined) return { kind: "fragment", at: at.split(".") };
  return `unknown marker "config: ${body}": use "config: fragment", "config: fragment in a.b" or "config: none"`;
}

/** A fenced block of a Markdown file, with the marker comment right before its fence, if any. */
export interface FencedBlock {
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  text: string;
  marker?: { line: number; body: string };
}

/** Every fenced block of `markdown`, and a `line: message` for each marker not right before a fence. */
export function fencedBlocks(markdown: string): { blocks: FencedBlock[]; problems: string[] } {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  const problems: string[] = [];
  let marker: { line: number; body: string } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").trim();
    const found = markerPattern.exec(line);
    const fence = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (found !== null) marker = { line: index + 1, body: found[1] ?? "" };
    else if (fence === null && line !== "") {
      if (marker !== undefined) problems.push(`${marker.line}: a config marker must come right before a fence`);
      marker = undefined;
    } else if (fence !== null) {
      const close = lines.findIndex((candidate, at) => at > index && candidate.trim() === fence[1]);
      const end = close === -1 ? lines.length : close;
      blocks.push({
        line: index + 1,
        language: (fence[2] ?? "").toLowerCase(),
        text: lines.slice(index + 1, end).join("\n"),
        ...(marker === undefined ? {} : { marker }),
      });
      marker = undefined;
      index = end;
    }
  }
  return { blocks, problems };
}

/** The config blocks of `markdown`, and a `line: message` for each marker that is misplaced or unknown. */
export function readmeSnippets(markdown: string): { snippets: Snippet[]; problems: string[] } {
  const { blocks, problems } = fencedBlocks(markdown);
  const snippets: Snippet[] = [];
  for (const { line, language, text, marker } of blocks) {
    const check = marker === undefined ? { kind: "whole" as const } : parseMarker(marker.body);
    if (typeof check === "string") problems.push(`${marker?.line}: ${check}`);
    else if (configLanguages.has(language)) snippets.push({ line, language, text, check });
    else if (marker !== undefined)
      problems.push(
        `${marker.line}: a config marker before a \`${language || "plain"}\` block, which is never taken for a config`,
      );
  }
  return { snippets, problems: problems.sort((a, b) => Number.parseInt(a) - Number.parseInt(b)) };
}
