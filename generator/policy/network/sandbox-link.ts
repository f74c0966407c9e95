/** A sandbox's network namespace and the veth pair that is its only link to the host. */
export interface SandboxLink {
  /** Network namespace name (also the container name), e.g. "f7". */
  namespace: string;
  /** Host end of the veth pair, e.g. "ve-f7": host-side policy hooks on this interface. */
  hostInterface: string;
  hostAddress: string;
  sandboxAddress: string;
  /** IPv6 (ULA, derived from the IPv4 base and slot): the same policy applies to both families. */
  hostAddress6: string;
  sandboxAddress6: string;
  /** Path systemd-nspawn joins with --network-namespace-path. */
  namespacePath: string;
}

/** Addresses and names for slot N (ARCHITECTURE.md, "Contracts kept stable": addresses). */
export function sandboxLink(slot: number, base: string): SandboxLink {
  const namespace = `f${slot}`;
  const prefix6 = ipv6Prefix(slot, base);
  return {
    namespace,
    hostInterface: `ve-${namespace}`,
    hostAddress: `${base}.${slot}.1`,
    sandboxAddress: `${base}.${slot}.2`,
    hostAddress6: `${prefix6}::1`,
    sandboxAddress6: `${prefix6}::2`,
    namespacePath: `/run/netns/${namespace}`,
  };
}

/** Every sandbox's addresses under a base: the IPv4 /16 and the IPv6 /32 (network, prefix length implied). */
export function sandboxRanges(base: string): { v4: string; v6: string } {
  return { v4: `${base}.0.0`, v6: `${ipv6Prefix(0, base).replace(/:0$/, "")}::` };
}

/** `fd66:<base as hex>:<slot>` (/64): "10.100" slot 7 → fd66:a64:7. Unique per base, like the IPv4 /16. */
function ipv6Prefix(slot: number, base: string): string {
  const [a, b] = base.split(".").map(Number) as [number, number];
  return `fd66:${((a << 8) | b).toString(16)}:${slot.toString(16)}`;
}
