import { parseAllowEntry } from "../../model/allow-rule.js";
import type { AllowRule } from "../../model/model.js";
import { allowEntry } from "../../config/schema/allow-entry.js";
import { isPublicSuffix, registrableDomain, wildcardRefusal } from "./public-suffixes.js";

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
  /** Names no allow entry should hold (addresses, reverse lookups, single labels, denied names): name and why. */
  skipped: { name: string; reason: string }[];
}

/** A `*.suffix` is suggested only for at least this many distinct names below the suffix. */
export const minNamesPerGroup = 3;

/**
 * The smallest allow list change that covers what a sandbox used. Names the template's entries
 * already cover are left out, and so are denied names (`denied`: the deny list's entries and the
 * names the human denied, exact or `*.suffix`); the rest become exact entries, except that names
 * sharing a suffix become one `*.suffix` when (the grouping rule):
 * - at least minNamesPerGroup distinct names were seen strictly below that suffix,
 * - the suffix lies at or below the names' registrable domain on the Public Suffix List, ICANN
 *   and private sections (public-suffixes.ts): never at or over a public suffix (`*.github.io`,
 *   `*.s3.amazonaws.com`, `*.amazonaws.com`, `*.ngrok-free.app` cover anyone's names),
 * - it covers no denied name and overlaps no denied wildcard,
 * - the deepest such suffix wins, so `*.cdn.example.org` is chosen before `*.example.org`, and
 *   names grouped once are not counted again for a shallower suffix.
 * The suffix itself stays an exact entry when it was seen (`*.x` does not match `x`).
 *
 * @example suggestAllowlist([{ name: "a.cdn.example.org", source: "learned" }, …b, c…, { name: "api.example.org", source: "learned" }], [])
 * // add: [{ entry: "*.cdn.example.org", names: [a, b, c] }, { entry: "api.example.org", names: ["api.example.org"] }]
 */
export function suggestAllowlist(
  seen: readonly SeenName[],
  templateAllow: readonly string[],
  denied: readonly string[] = [],
): AllowSuggestion {
  const rules = templateAllow.map(parseAllowEntry);
  const deniedRules = denied.map(parseAllowEntry);
  const plain = new Map<string, Set<SeenNameSource>>();
  const ported = new Map<string, { name: string; sources: Set<SeenNameSource> }>();
  const covered: AllowSuggestion["covered"] = [];
  const skipped: AllowSuggestion["skipped"] = [];
  for (const { name: raw, source, port } of seen) {
    const name = raw.toLowerCase().replace(/\.$/, "");
    const deniedBy = deniedRules.find((rule) => matches(rule, name));
    const reason = deniedBy === undefined ? unusable(name) : `denied (${deniedBy.entry})`;
    if (reason !== null) {
      if (!skipped.some((each) => each.name === name)) skipped.push({ name, reason });
      continue;
    }
    // A name approved on one port is covered only by an entry that allows that port.
    const by = rules.find(
      (rule) => matches(rule, name) && (port === undefined || rule.port === null || rule.port === port),
    );
    if (by !== undefined) {
      if (!covered.some((each) => each.name === name)) covered.push({ name, by: by.entry });
      continue;
    }
    if (port === undefined) plain.set(name, (plain.get(name) ?? new Set()).add(source));
    else
      ported.set(`${name}:${port}`, {
        name,
        sources: (ported.get(`${name}:${port}`)?.sources ?? new Set()).add(source),
      });
  }
  // A name also seen without a port needs no entry of its own for a port: the port-less one covers it.
  for (const [entry, { name }] of ported) if (plain.has(name)) ported.delete(entry);
  const groups = [
    ...groupNames([...plain.keys()], deniedRules),
    ...[...ported].map(([entry, { name }]) => ({ entry, names: [name] })),
  ];
  const sourcesOf = (entry: string, name: string): SeenNameSource[] => [
    ...(ported.get(entry)?.sources ?? plain.get(name) ?? []),
  ];
  const add = groups
    .map(({ entry, names }) => ({
      entry,
      names: names.sort(),
      sources: [...new Set(names.flatMap((name) => sourcesOf(entry, name)))].sort(),
    }))
    .sort(
      (a, b) =>
        a.entry.replace(/^\*\./, "").localeCompare(b.entry.replace(/^\*\./, "")) || a.entry.localeCompare(b.entry),
    );
  return { add, covered: covered.sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

function groupNames(names: string[], denied: readonly AllowRule[]): { entry: string; names: string[] }[] {
  const remaining = new Set(names);
  const entries: { entry: string; names: string[] }[] = [];
  // Every proper suffix of a seen name at or below its registrable domain, deepest first.
  const candidates = new Set<string>();
  for (const name of names) {
    const floor = registrableDomain(name).split(".").length;
    const labels = name.split(".");
    for (let depth = labels.length - 1; depth >= floor; depth--) candidates.add(labels.slice(-depth).join("."));
  }
  const byDepth = [...candidates].sort((a, b) => b.split(".").length - a.split(".").length || a.localeCompare(b));
  for (const suffix of byDepth) {
    const below = [...remaining].filter((name) => name.endsWith(`.${suffix}`));
    if (
      below.length < minNamesPerGroup ||
      wildcardRefusal(suffix) !== null ||
      denied.some((rule) => overlaps(rule, suffix))
    )
      continue;
    entries.push({ entry: `*.${suffix}`, names: below });
    below.forEach((name) => remaining.delete(name));
  }
  for (const name of remaining) entries.push({ entry: name, names: [name] });
  return entries;
}

/** `*.example.com` matches names below example.com, never example.com itself. */
function matches(rule: AllowRule, name: string): boolean {
  return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
}

/** Whether `*.suffix` would reach a name `rule` denies: a denied name below it, or a denied wildcard over, at or below it. */
function overlaps(rule: AllowRule, suffix: string): boolean {
  if (rule.host.endsWith(`.${suffix}`)) return true;
  return rule.wildcard && (rule.host === suffix || suffix.endsWith(`.${rule.host}`));
}

/** Why a name cannot be an allow entry, or null. */
function unusable(name: string): string | null {
  if (/^[0-9.]+$/.test(name) || name.includes(":")) return "an address, not a name";
  if (name.endsWith(".arpa")) return "a reverse lookup";
  if (!name.includes(".")) return "a single label (a local name)";
  if (name === "localhost" || name.endsWith(".localhost")) return "loopback";
  if (!allowEntry.safeParse(name).success || name.startsWith("*.") || name.includes(":"))
    return "not a host name an allow entry can hold";
  if (isPublicSuffix(name)) return "a public suffix";
  return null;
}
