import { readFile, writeFile } from "node:fs/promises";
import { execa } from "execa";
import { SandboxError } from "../sandbox/errors.js";

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

/** Addresses and names for slot N (DESIGN.md "Addresses"). */
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

/**
 * Creates the namespace and veth pair: `ve-fN` (host, <base>.N.1/24, <prefix6>::1/64) ↔ `eth0`
 * (sandbox, .N.2, ::2) with default routes via the host end. The routes are not a permission:
 * what may leave is decided by the host-side table on ve-fN (host-policy.ts), whatever routes
 * the sandbox's root sets.
 */
export async function createLink(link: SandboxLink): Promise<void> {
  const added = await execa("ip", ["netns", "add", link.namespace], { reject: false });
  if (added.exitCode !== 0) {
    // Never take over a namespace that is not ours: another Forage state directory may own it.
    throw new SandboxError(`cannot create network namespace ${link.namespace}: ${added.stderr.trim()} (a leftover? see forage-ctl gc; or another Forage instance on this host uses slot ${link.namespace.slice(1)})`, "container");
  }
  await ip("link", "add", link.hostInterface, "type", "veth", "peer", "name", "eth0", "netns", link.namespace);
  await ip("addr", "add", `${link.hostAddress}/24`, "dev", link.hostInterface);
  await ip("link", "set", link.hostInterface, "up");
  await ip("-n", link.namespace, "addr", "add", `${link.sandboxAddress}/24`, "dev", "eth0");
  await ip("-n", link.namespace, "link", "set", "eth0", "up");
  await ip("-n", link.namespace, "link", "set", "lo", "up");
  await ip("-n", link.namespace, "route", "add", "default", "via", link.hostAddress);
  if (!(await ipv6Enabled())) return;
  // The host never takes router advertisements from a sandbox (forwarding.ts sets others to 2).
  await writeFile(`/proc/sys/net/ipv6/conf/${link.hostInterface}/accept_ra`, "0");
  // nodad: the addresses are ours alone on this link, and DAD would hold them back ~1 s.
  await ip("-6", "addr", "add", `${link.hostAddress6}/64`, "dev", link.hostInterface, "nodad");
  await ip("-n", link.namespace, "-6", "addr", "add", `${link.sandboxAddress6}/64`, "dev", "eth0", "nodad");
  await ip("-n", link.namespace, "-6", "route", "add", "default", "via", link.hostAddress6);
}

/** False on hosts booted with IPv6 off: sandboxes then get IPv4 only. */
export async function ipv6Enabled(): Promise<boolean> {
  return (await readFile("/proc/sys/net/ipv6/conf/all/disable_ipv6", "utf8").catch(() => "1")).trim() === "0";
}

/** Removes the namespace (which takes the veth pair with it); absent is fine. */
export async function removeLink(link: SandboxLink): Promise<void> {
  await execa("ip", ["netns", "delete", link.namespace], { reject: false });
  await execa("ip", ["link", "delete", link.hostInterface], { reject: false });
}

async function ip(...args: string[]): Promise<void> {
  await execa("ip", args);
}
