import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { dropUndefined } from "../../../generator/lib/drop-undefined.js";
import { Agent } from "node:https";
import { createSecureContext, rootCertificates, type SecureContext } from "node:tls";
import { isIP, type LookupFunction } from "node:net";
import { SpecialAddresses } from "../shared/special-addresses.js";
import { sandboxRanges } from "../../../generator/policy/network/sandbox-link.js";

/** An upstream address the proxy will not connect to. */
export class UpstreamRefused extends Error {
  override name = "UpstreamRefused";
}

/** Connections one sandbox may have open to one upstream; its further requests wait their turn. */
export const socketsPerSandbox = 64;

/**
 * Keep-alive HTTPS agents, one per sandbox and upstream origin: no connection ever carries two
 * sandboxes' requests, and no sandbox can take every connection. Upstreams must resolve to public addresses:
 * a name pointed at loopback, link-local (cloud metadata), a private network or a sandbox would
 * make the proxy a way in. Origins listed in `proxy.allowUpstreams` (test servers, a local
 * gateway) are exempt. `caFile`'s authorities are trusted besides the system's.
 */
export class UpstreamAgents {
  private readonly agents = new Map<string, Agent>();
  private readonly special: SpecialAddresses;
  /**
   * Built once: an agent given `ca` itself would fold every certificate into the pool key it
   * computes per request (and build a TLS context per connection), milliseconds each time.
   */
  private readonly secureContext: SecureContext | undefined;

  constructor(
    base: string,
    private readonly allowUpstreams: ReadonlySet<string>,
    extraCa: string | null,
  ) {
    this.special = new SpecialAddresses(sandboxRanges(base), []);
    this.secureContext = extraCa === null ? undefined : createSecureContext({ ca: [...rootCertificates, extraCa] });
  }

  /** The sandbox's agent for an https origin; throws UpstreamRefused for an address literal that is not public. */
  agentFor(sandbox: string, origin: string): Agent {
    const pool = `${sandbox} ${origin}`;
    const known = this.agents.get(pool);
    if (known !== undefined) return known;
    // Address literals are never looked up, so the lookup's check would not see them.
    const hostname = new URL(origin).hostname.replace(/^\[|\]$/g, "");
    const literalRefusal =
      !this.allowUpstreams.has(origin) && isIP(hostname) !== 0 ? this.special.refusal(hostname) : null;
    if (literalRefusal !== null)
      throw new UpstreamRefused(`${origin} is ${literalRefusal}; list it in proxy.allowUpstreams if that is intended`);
    const agent = new Agent({
      keepAlive: true,
      // Headers and body may go out as separate writes: with Nagle's algorithm each would wait for an ACK.
      noDelay: true,
      maxSockets: socketsPerSandbox,
      // As many idle as busy: a pool that drops idle sockets under bursts pays a TLS handshake per request.
      maxFreeSockets: socketsPerSandbox,
      scheduling: "lifo",
      ...dropUndefined({ secureContext: this.secureContext }),
      lookup: this.allowUpstreams.has(origin) ? dnsLookup : this.publicOnly(origin),
    });
    this.agents.set(pool, agent);
    return agent;
  }

  /** Closes the pools of sandboxes that are gone. */
  forgetAllBut(sandboxes: ReadonlySet<string>): void {
    for (const [pool, agent] of this.agents) {
      const owner = pool.slice(0, pool.indexOf(" "));
      // "_…" pools are the proxy's own (login refreshes): no sandbox name starts with "_".
      if (sandboxes.has(owner) || owner.startsWith("_")) continue;
      agent.destroy();
      this.agents.delete(pool);
    }
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** A lookup that fails for any non-public address, so the check covers every connection. */
  private publicOnly(origin: string): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
        if (error !== null) return callback(error, "", 0);
        const refused = addresses.map((entry) => this.special.refusal(entry.address)).find((reason) => reason !== null);
        if (refused !== undefined)
          return callback(
            new UpstreamRefused(
              `${origin} resolves to ${refused}; list it in proxy.allowUpstreams if that is intended`,
            ),
            "",
            0,
          );
        if (options.all === true)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      });
    };
  }
}
