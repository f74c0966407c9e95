import { runCommand } from "../../core/run-command.js";
import type { SandboxLink } from "../../../generator/policy/network/sandbox-link.js";
import type { AllowedAddresses } from "./allowed-addresses.js";

/** A name's addresses whose approval (`approve --for`) is up. */
export interface EndedApproval {
  name: string;
  port: number;
  addresses: string[];
}

/**
 * Takes back what approvals whose time is up admitted: their elements leave the sandbox's sets
 * now, and the connections the sandbox has open to them on their port lose their conntrack
 * entries, so their next packet is judged by the sets without them (and reset). Without
 * conntrack, open connections run on until they close (new ones are refused either way).
 */
export async function takeBackEnded(
  allowed: AllowedAddresses,
  link: SandboxLink,
  ended: readonly EndedApproval[],
): Promise<void> {
  for (const { name, port, addresses } of ended) {
    await allowed.revoke(name, port, addresses);
    for (const address of addresses) {
      const family = address.includes(":") ? ["-f", "ipv6", "-s", link.sandboxAddress6] : ["-s", link.sandboxAddress];
      // Exit status 1 only says there was nothing to delete.
      for (const protocol of ["tcp", "udp"])
        await runCommand("conntrack", ["-D", ...family, "-d", address, "-p", protocol, "--dport", String(port)], {
          reject: false,
        });
    }
  }
}
