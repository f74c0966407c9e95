import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/*
 * The package-registry hosts this machine is configured with, read at test time so that the
 * repository never has to name one (ARCHITECTURE.md rule 15): npm's registry and apt's sources.
 */

/** A configured source of registry hosts: where it was read, and the hosts it names. */
export interface RegistrySource {
  source: string;
  hosts: string[];
}

/**
 * The host of a registry or mirror URL, or undefined when it names no host worth looking for:
 * a local file or cdrom, an IP literal, or a single-label name (`localhost`, a LAN alias), which
 * would match ordinary words in the repository rather than advertise a registry.
 * Transport prefixes (`mirror+http://`, `tor+https://`) are apt's; the URL after them counts.
 */
export function hostOfUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^[a-z0-9]+\+(?=[a-z]+:)/i, ""));
  } catch {
    return undefined;
  }
  if (!["http:", "https:", "ftp:"].includes(parsed.protocol)) return undefined;
  const host = parsed.hostname.toLowerCase();
  if (!host.includes(".") || /^[\d.]+$/.test(host) || host.startsWith("[")) return undefined;
  return host;
}

/** URIs of apt's one-line format (`sources.list`, `*.list`): `deb [options] URI suite components`. */
export function oneLineSourceUris(text: string): string[] {
  return text.split("\n").flatMap((raw) => {
    const line = raw.replace(/#.*/, "").trim();
    const entry = /^deb(?:-src)?\s+(?:\[[^\]]*\]\s*)?(\S+)/.exec(line);
    return entry?.[1] === undefined ? [] : [entry[1]];
  });
}

/** URIs of apt's deb822 format (`*.sources`): stanzas with a `URIs:` field; `Enabled: no` ones apt skips. */
export function deb822SourceUris(text: string): string[] {
  const lines = text.split("\n").filter((line) => !line.startsWith("#"));
  const stanzas = lines.join("\n").split(/\n\s*\n/);
  return stanzas.flatMap((stanza) => {
    const fields = new Map<string, string>();
    // A field's value continues on lines that start with white space.
    for (const match of stanza.matchAll(/^([A-Za-z][\w-]*):([^\n]*(?:\n[ \t][^\n]*)*)/gm)) {
      fields.set((match[1] ?? "").toLowerCase(), (match[2] ?? "").trim());
    }
    if (fields.get("enabled")?.toLowerCase() === "no") return [];
    return (fields.get("uris") ?? "").split(/\s+/).filter((uri) => uri !== "");
  });
}

/** npm's configured registry (`npm config get registry`), or undefined when npm cannot say. */
export function npmRegistrySource(): RegistrySource | undefined {
  let url: string;
  try {
    url = execFileSync("npm", ["config", "get", "registry"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
  const host = hostOfUrl(url);
  return host === undefined ? undefined : { source: "npm config get registry", hosts: [host] };
}

/**
 * apt's sources under `etcApt` (/etc/apt/sources.list and sources.list.d/*.list, *.sources:
 * the files apt reads; others, like `*.disabled`, it ignores), or undefined when there are none.
 */
export function aptSource(etcApt = "/etc/apt"): RegistrySource | undefined {
  const files: { path: string; uris: (text: string) => string[] }[] = [
    { path: join(etcApt, "sources.list"), uris: oneLineSourceUris },
  ];
  let listed: string[] = [];
  try {
    listed = readdirSync(join(etcApt, "sources.list.d")).sort();
  } catch {
    // No sources.list.d: only sources.list counts.
  }
  for (const name of listed) {
    if (name.endsWith(".list")) files.push({ path: join(etcApt, "sources.list.d", name), uris: oneLineSourceUris });
    if (name.endsWith(".sources")) files.push({ path: join(etcApt, "sources.list.d", name), uris: deb822SourceUris });
  }
  const hosts = files.flatMap(({ path, uris }) => {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return [];
    }
    return uris(text).flatMap((uri) => hostOfUrl(uri) ?? []);
  });
  return hosts.length === 0 ? undefined : { source: `apt sources in ${etcApt}`, hosts: [...new Set(hosts)].sort() };
}

/**
 * The hosts of every configured source. A missing source (no npm registry, no apt source) is a
 * failure under `CI=true` (ARCHITECTURE.md rule 11: CI runs on a fresh Debian root with both); locally it
 * is reported on stderr and the others are used.
 */
export function configuredRegistryHosts(
  sources: Record<string, RegistrySource | undefined>,
  ci = process.env.CI === "true",
): string[] {
  const missing = Object.entries(sources).flatMap(([name, found]) => (found === undefined ? [name] : []));
  if (missing.length > 0) {
    const reason = `no package-registry hosts from ${missing.join(", ")}`;
    if (ci)
      throw new Error(`CI=true and ${reason}: the scan for registry hosts needs this machine's configured sources`);
    console.warn(`skipping part of the scan: ${reason}`);
  }
  return [...new Set(Object.values(sources).flatMap((found) => found?.hosts ?? []))].sort();
}
