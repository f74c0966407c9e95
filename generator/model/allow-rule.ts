/** An allow (or deny) entry and its parts. */
export interface AllowRule {
  /** As written, e.g. "*.github.com:443". */
  entry: string;
  /** The name without `*.` and port, e.g. "github.com". */
  host: string;
  /** True for `*.suffix`: every name below `host`, not `host` itself. */
  wildcard: boolean;
  port: number | null;
}

/**
 * Parses an allow (or deny) entry the schema accepted into its parts. The one parser of entries:
 * the model parses a template's, the network policy layer a running sandbox's (once, when read).
 *
 * @example parseAllowEntry("*.github.com:443") // { entry: "*.github.com:443", host: "github.com", wildcard: true, port: 443 }
 */
export function parseAllowEntry(entry: string): AllowRule {
  const [hostPart, portPart] = entry.split(":");
  const name = hostPart ?? entry;
  const wildcard = name.startsWith("*.");
  return {
    entry,
    host: wildcard ? name.slice(2) : name,
    wildcard,
    port: portPart === undefined ? null : Number(portPart),
  };
}
