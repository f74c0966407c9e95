import { readdir, readFile, writeFile } from "node:fs/promises";

const ipv4Forward = "/proc/sys/net/ipv4/ip_forward";
const ipv6Forward = "/proc/sys/net/ipv6/conf/all/forwarding";

/**
 * Turns on IPv4 and IPv6 forwarding, which restricted and full sandboxes need to reach anything
 * through the host (what may pass is decided by each sandbox's table, never by this switch).
 * Turning IPv6 forwarding on makes the kernel ignore router advertisements on interfaces with
 * accept_ra=1, so those are first set to 2 ("even when forwarding"): the host keeps its own
 * IPv6 addresses and routes. Interfaces made later follow `default` (left alone: sandbox links
 * must not take advertisements), so one that relies on them needs accept_ra=2 set by the host's
 * network configuration. Returns what it changed, which forage-ctl prints.
 */
export async function enableForwarding(): Promise<string[]> {
  const changed: string[] = [];
  if ((await readSysctl(ipv4Forward)) !== "1") {
    await writeFile(ipv4Forward, "1");
    changed.push("net.ipv4.ip_forward=1");
  }
  if ((await readSysctl(ipv6Forward)) === "0") {
    for (const iface of await readdir("/proc/sys/net/ipv6/conf")) {
      // Sandbox links never take router advertisements (sandbox-link.ts sets them to 0).
      if (iface === "all" || iface === "default" || iface.startsWith("ve-")) continue;
      const acceptRa = `/proc/sys/net/ipv6/conf/${iface}/accept_ra`;
      if ((await readSysctl(acceptRa)) === "1") {
        await writeFile(acceptRa, "2");
        changed.push(`net.ipv6.conf.${iface}.accept_ra=2`);
      }
    }
    await writeFile(ipv6Forward, "1");
    changed.push("net.ipv6.conf.all.forwarding=1");
  }
  return changed;
}

async function readSysctl(path: string): Promise<string | null> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return null; // IPv6 disabled on this host: nothing to forward
  }
}
