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
  /** Path systemd-nspawn joins with --network-namespace-path. */
  namespacePath: string;
}

/** Addresses and names for slot N (DESIGN.md "Addresses"). */
export function sandboxLink(slot: number, base: string): SandboxLink {
  const namespace = `f${slot}`;
  return {
    namespace,
    hostInterface: `ve-${namespace}`,
    hostAddress: `${base}.${slot}.1`,
    sandboxAddress: `${base}.${slot}.2`,
    namespacePath: `/run/netns/${namespace}`,
  };
}

/**
 * Creates the namespace and veth pair: `ve-fN` (host, <base>.N.1/24) ↔ `eth0` (sandbox,
 * <base>.N.2/24). No route leaves the sandbox here; network modes add what they allow.
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
}

/** Removes the namespace (which takes the veth pair with it); absent is fine. */
export async function removeLink(link: SandboxLink): Promise<void> {
  await execa("ip", ["netns", "delete", link.namespace], { reject: false });
  await execa("ip", ["link", "delete", link.hostInterface], { reject: false });
}

async function ip(...args: string[]): Promise<void> {
  await execa("ip", args);
}
