import { readFile, writeFile } from "node:fs/promises";
import { runCommand } from "../../core/run-command.js";
import { SandboxError } from "../../core/errors.js";
import type { SandboxLink } from "../../../generator/policy/network/sandbox-link.js";
import { pathExists } from "../../core/path-exists.js";

export { sandboxLink, sandboxRanges, type SandboxLink } from "../../../generator/policy/network/sandbox-link.js";

/**
 * Creates the namespace and veth pair: `ve-fN` (host, <base>.N.1/24, <prefix6>::1/64) ↔ `eth0`
 * (sandbox, .N.2, ::2) with default routes via the host end. The routes are not a permission:
 * what may leave is decided by the host-side table on ve-fN (generator/policy/network/host-table.ts), whatever routes
 * the sandbox's root sets.
 */
export async function createLink(link: SandboxLink): Promise<void> {
  // Never take over a namespace that is not ours: another Forage state directory may own it.
  // (The slot is claimed host-wide first, so no other forage-ctl makes this one meanwhile.)
  if (await pathExists(`/run/netns/${link.namespace}`)) {
    throw new SandboxError(
      `cannot create network namespace ${link.namespace}: it exists (a leftover? see forage-ctl gc; or another Forage instance on this host uses slot ${link.namespace.slice(1)})`,
      "container",
    );
  }
  const v6 = await ipv6Enabled();
  // nodad: the addresses are ours alone on this link, and DAD would hold them back ~1 s.
  await ipBatch(
    [],
    [
      `netns add ${link.namespace}`,
      `link add ${link.hostInterface} type veth peer name eth0 netns ${link.namespace}`,
      `addr add ${link.hostAddress}/24 dev ${link.hostInterface}`,
      ...(v6 ? [`addr add ${link.hostAddress6}/64 dev ${link.hostInterface} nodad`] : []),
      `link set ${link.hostInterface} up`,
    ],
  );
  // The host never takes router advertisements from a sandbox (forwarding.ts sets others to 2).
  if (v6) await writeFile(`/proc/sys/net/ipv6/conf/${link.hostInterface}/accept_ra`, "0");
  await addressSandboxEnd(link, v6);
}

/**
 * Gives the sandbox's end its addresses and default routes (again: gVisor's own stack takes them
 * from the namespace at each start and restore, see runtime/backends/gvisor/netstack.ts).
 * `replace`: whatever of them is still there is kept, not refused.
 */
export async function addressSandboxEnd(link: SandboxLink, v6: boolean): Promise<void> {
  await ipBatch(
    ["-n", link.namespace],
    [
      `addr replace ${link.sandboxAddress}/24 dev eth0`,
      ...(v6 ? [`addr replace ${link.sandboxAddress6}/64 dev eth0 nodad`] : []),
      "link set eth0 up",
      "link set lo up",
      `route replace default via ${link.hostAddress}`,
      ...(v6 ? [`route replace default via ${link.hostAddress6}`] : []),
    ],
  );
}

/**
 * Takes the link's sandbox end (eth0 in its namespace) down or up: while it is down no frame
 * reaches the sandbox or leaves it. The host end keeps its addresses (IPv6 ones would go with an
 * administrative down there).
 */
export async function setSandboxEnd(link: SandboxLink, state: "up" | "down"): Promise<void> {
  await runCommand("ip", ["-n", link.namespace, "link", "set", "eth0", state]);
}

/** False on hosts booted with IPv6 off: sandboxes then get IPv4 only. */
export async function ipv6Enabled(): Promise<boolean> {
  return (await readFile("/proc/sys/net/ipv6/conf/all/disable_ipv6", "utf8").catch(() => "1")).trim() === "0";
}

/** Removes the namespace (which takes the veth pair with it); absent is fine. */
export async function removeLink(link: SandboxLink): Promise<void> {
  await runCommand("ip", ["netns", "delete", link.namespace], { reject: false });
  await runCommand("ip", ["link", "delete", link.hostInterface], { reject: false });
}

/** Runs ip commands in one process (`ip -batch -`); the lines hold only names and addresses we made. */
async function ipBatch(options: string[], lines: string[]): Promise<void> {
  await runCommand("ip", [...options, "-batch", "-"], { input: `${lines.join("\n")}\n` });
}
