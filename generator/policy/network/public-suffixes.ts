import { createRequire } from "node:module";
import { getDomain, getPublicSuffix } from "tldts";

/*
 * The Public Suffix List, ICANN and private sections (names under which anyone can get a name of
 * their own: co.uk, github.io, s3.amazonaws.com, ngrok-free.app, blob.core.windows.net, …), as
 * the tldts package carries it (pinned in package.json; its list is updated with each release, and
 * it never goes to the network). Its public API says what a name's suffix and registrable domain
 * are; whether the list has a suffix *below* a name (amazonaws.com has s3.amazonaws.com) it does
 * not say, so that is read from the trie tldts ships its list in. public-suffixes.test.ts checks
 * that reading against tldts' own answers for every rule, so a release that changes the trie's
 * layout fails there, not silently here.
 */

const options = { allowPrivateDomains: true, extractHostname: false } as const;

/** tldts' flat trie of the list's rules: nodes, their edges (labels), and each node's flags (a rule ends here). */
interface SuffixTrie {
  nodeFlags: ArrayLike<number>;
  edgeStart: ArrayLike<number>;
  edgeLength: ArrayLike<number>;
  edgeChild: ArrayLike<number>;
  labelText: string;
  rulesRoot: number;
}

const trie = createRequire(import.meta.url)("tldts/dist/cjs/src/data/trie.js") as SuffixTrie;
let labelOffsets: number[] | undefined;

/** Where each edge's label starts in labelText (the labels lie there in edge order). */
function offsets(): number[] {
  if (labelOffsets !== undefined) return labelOffsets;
  const starts: number[] = [];
  let offset = 0;
  for (let edge = 0; edge < trie.edgeLength.length; edge++) {
    starts.push(offset);
    offset += trie.edgeLength[edge] ?? 0;
  }
  labelOffsets = starts;
  return starts;
}

/** The labels of each edge of `node`, with the node each leads to. */
export function edgesOf(node: number): { label: string; child: number }[] {
  const starts = offsets();
  const edges: { label: string; child: number }[] = [];
  for (let edge = trie.edgeStart[node] ?? 0; edge < (trie.edgeStart[node + 1] ?? 0); edge++) {
    const start = starts[edge] ?? 0;
    edges.push({
      label: trie.labelText.slice(start, start + (trie.edgeLength[edge] ?? 0)),
      child: trie.edgeChild[edge] ?? -1,
    });
  }
  return edges;
}

/** The trie's root of rules (not of exceptions): its edges are the top-level labels. */
export const rulesRoot = trie.rulesRoot;

/** Whether a rule ends at `node`. */
export function endsRule(node: number): boolean {
  return (trie.nodeFlags[node] ?? 0) !== 0;
}

/** The node a name's labels lead to from the root, label by label from the right, or null when the list has no such path. */
function nodeOf(name: string): number | null {
  let node = trie.rulesRoot;
  for (const label of name.split(".").reverse()) {
    const next = edgesOf(node).find((edge) => edge.label === label);
    if (next === undefined) return null;
    node = next.child;
  }
  return node;
}

/**
 * Why `*.suffix` must never be suggested, or null when it may: `suffix` is itself a public suffix
 * (a wildcard at it covers everyone's names), or the list has a suffix below it (one over
 * s3.amazonaws.com covers every bucket). Lower-case names, no trailing dot.
 *
 * @example wildcardRefusal("amazonaws.com") // "the Public Suffix List has suffixes below amazonaws.com (anyone's names are there)"
 */
export function wildcardRefusal(suffix: string): string | null {
  if (isPublicSuffix(suffix)) return `${suffix} is a public suffix (anyone registers names under it)`;
  const node = nodeOf(suffix);
  if (node !== null && edgesOf(node).length > 0)
    return `the Public Suffix List has suffixes below ${suffix} (anyone's names are there)`;
  return null;
}

/** Whether `name` is a suffix on the list (a wildcard rule's names count), or a top-level label. */
export function isPublicSuffix(name: string): boolean {
  return getPublicSuffix(name, options) === name || getDomain(name, options) === null;
}

/**
 * The registrable domain of a name: one label below its public suffix (`example.co.uk`,
 * `alice.github.io`, `bucket.s3.amazonaws.com`), or the name itself when it has none.
 */
export function registrableDomain(name: string): string {
  return getDomain(name, options) ?? name;
}
