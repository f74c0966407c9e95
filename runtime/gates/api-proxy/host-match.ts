/**
 * Whether an allowlist entry (`name`, `*.suffix`, either with `:port`) covers a URL host
 * (`name` or `name:port`; an https URL without a port is port 443).
 *
 * @example hostMatches("*.example.com", "api.example.com") // true
 */
export function hostMatches(entry: string, urlHost: string): boolean {
  const [entryName, entryPort] = splitPort(entry);
  const [name, port] = splitPort(urlHost.toLowerCase());
  if (entryPort !== null && entryPort !== (port ?? "443")) return false;
  return entryName.startsWith("*.")
    ? name.endsWith(entryName.slice(1)) && name.length > entryName.length - 1
    : name === entryName;
}

/** "host:443" → ["host", "443"]; "[::1]:8443" → ["[::1]", "8443"]; "host" → ["host", null]. */
function splitPort(host: string): [string, string | null] {
  const match = /^(.*?)(?::(\d+))?$/.exec(host);
  if (match === null || (match[1] ?? "").endsWith(":")) return [host, null];
  return [match[1] ?? host, match[2] ?? null];
}
