import { parseAllowEntry } from "../../model/allow-rule.js";
import { allowEntry } from "../../config/schema/allow-entry.js";

/**
 * Where a name to make permanent came from: resolved in learn mode, or approved by the human in
 * ask mode (`once`: for the sandbox's life; `always`: into its policy).
 */
export type SeenNameSource = "learned" | "once" | "always";

/** A name the sandbox used, lower case, without the trailing dot. */
export interface SeenName {
  name: string;
  source: SeenNameSource;
  /** The one port it was approved on (ask mode); absent: a resolved name, which says nothing of ports. */
  port?: number;
}

/** One entry to add to the template's allow list, and the names it covers. */
export interface SuggestedEntry {
  /** `host`, `host:port` (a name approved on that port alone) or `*.suffix` (names without a port only). */
  entry: string;
  names: string[];
  sources: SeenNameSource[];
}

/** The change that would make the seen names permanent, and what it leaves out and why. */
export interface AllowSuggestion {
  add: SuggestedEntry[];
  /** Names the template's allow list covers already: name and the entry that covers it. */
  covered: { name: string; by: string }[];
  /** Names no allow entry can hold (addresses, reverse lookups, single labels): name and why. */
  skipped: { name: string; reason: string }[];
}

/** A `*.suffix` is suggested only for at least this many distinct names below the suffix. */
export const minNamesPerGroup = 3;

/**
 * A few common public suffixes of two labels (country second levels and shared hosting domains),
 * under which anyone registers names: never grouped into, as a bare TLD never is. Deliberately
 * small, not the Public Suffix List: a suffix missing here only means a name two labels below it
 * counts as registrable, and a group still needs minNamesPerGroup names seen below it.
 */
export const publicSuffixes: ReadonlySet<string> = new Set([
  ..."co ac gov org net com edu ne or".split(" ").flatMap((second) => "uk jp nz au br in kr tw cn za il mx".split(" ").map((top) => `${second}.${top}`)),
  "github.io",
  "gitlab.io",
  "pages.dev",
  "workers.dev",
  "netlify.app",
  "vercel.app",
  "herokuapp.com",
  "appspot.com",
  "blogspot.com",
  "cloudfront.net",
  "azurewebsites.net",
]);

/**
 * The smallest allow list change that covers what a sandbox used. Names the template's entries
 * already cover are left out; the rest become exact entries, except that names sharing a suffix
 * become one `*.suffix` when (the grouping rule):
 * - at least minNamesPerGroup distinct names were seen strictly below that suffix,
 * - the suffix lies within one registrable domain (the last two labels, or three below a public
 *   suffix above): never a TLD or a public suffix, nor anything above the registrable domain,
 * - the deepest such suffix wins, so `*.cdn.example.org` is chosen before `*.example.org`, and
 *   names grouped once are not counted again for a shallower suffix.
 * The suffix itself stays an exact entry when it was seen (`*.x` does not match `x`).
 *
 * @example suggestAllowlist([{ name: "a.cdn.example.org", source: "learned" }, …b, c…, { name: "api.example.org", source: "learned" }], [])
 * // add: [{ entry: "*.cdn.example.org", names: [a, b, c] }, { entry: "api.example.org", names: ["api.example.org"] }]
 */
export function suggestAllowlist(seen: readonly SeenName[], templateAllow: readonly string[]): AllowSuggestion {
  const rules = templateAllow.map(parseAllowEntry);
  const sources = new Map<string, Set<SeenNameSource>>();
  const covered: AllowSuggestion["covered"] = [];
  const skipped: AllowSuggestion["skipped"] = [];
  const ported = new Map<string, { name: string; sources: Set<SeenNameSource> }>();
  for (const { name: raw, source, port } of seen) {
    const name = raw.toLowerCase().replace(/\.$/, "");
    const reason = unusable(name);
    if (reason !== null) {
      if (!skipped.some((each) => each.name === name)) skipped.push({ name, reason });
      continue;
    }
    // A name approved on one port is covered only by an entry that allows that port.
    const by = rules.find((rule) => (rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host) && (port === undefined || rule.port === null || rule.port === port));
    if (by !== undefined) {
      if (!covered.some((each) => each.name === name)) covered.push({ name, by: by.entry });
      continue;
    }
    if (port === undefined) sources.set(name, (sources.get(name) ?? new Set()).add(source));
    else ported.set(`${name}:${port}`, { name, sources: (ported.get(`${name}:${port}`)?.sources ?? new Set()).add(source) });
  }
  // A name also seen without a port needs no entry of its own for a port: the port-less one covers it.
  for (const [entry, { name }] of ported) if (sources.has(name)) ported.delete(entry);
  const groups = [...groupNames([...sources.keys()]), ...[...ported].map(([entry, { name }]) => ({ entry, names: [name] }))];
  const sourcesOf = (entry: string, name: string): SeenNameSource[] => [...(ported.get(entry)?.sources ?? sources.get(name) ?? [])];
  const add = groups
    .map(({ entry, names }) => ({ entry, names: names.sort(), sources: [...new Set(names.flatMap((name) => sourcesOf(entry, name)))].sort() }))
    .sort((a, b) => a.entry.replace(/^\*\./, "").localeCompare(b.entry.replace(/^\*\./, "")) || a.entry.localeCompare(b.entry));
  return { add, covered: covered.sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

/** The registrable domain of a name: its last two labels, or three when the last two are a public suffix. */
export function registrableDomain(name: string): string {
  const labels = name.split(".");
  const two = labels.slice(-2).join(".");
  return publicSuffixes.has(two) ? labels.slice(-3).join(".") : two;
}

function groupNames(names: string[]): { entry: string; names: string[] }[] {
  const remaining = new Set(names);
  const entries: { entry: string; names: string[] }[] = [];
  // Every proper suffix of a seen name that lies within its registrable domain, deepest first.
  const candidates = new Set<string>();
  for (const name of names) {
    const floor = registrableDomain(name).split(".").length;
    const labels = name.split(".");
    for (let depth = labels.length - 1; depth >= floor; depth--) candidates.add(labels.slice(-depth).join("."));
  }
  const byDepth = [...candidates].sort((a, b) => b.split(".").length - a.split(".").length || a.localeCompare(b));
  for (const suffix of byDepth) {
    const below = [...remaining].filter((name) => name.endsWith(`.${suffix}`));
    if (below.length < minNamesPerGroup) continue;
    entries.push({ entry: `*.${suffix}`, names: below });
    below.forEach((name) => remaining.delete(name));
  }
  for (const name of remaining) entries.push({ entry: name, names: [name] });
  return entries;
}

/** Why a name cannot be an allow entry, or null. */
function unusable(name: string): string | null {
  if (/^[0-9.]+$/.test(name) || name.includes(":")) return "an address, not a name";
  if (name.endsWith(".arpa")) return "a reverse lookup";
  if (!name.includes(".")) return "a single label (a local name)";
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  if (!allowEntry.safeParse(name).success || name.startsWith("*.") || name.includes(":")) return "not a host name an allow entry can hold";
  if (publicSuffixes.has(name)) return "a public suffix";
  return null;
}
