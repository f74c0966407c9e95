import { hostPolicyTableRef } from "../../generator/policy/network/host-table.js";
import { networkModes } from "../../generator/config/network-modes.js";
import { runCommand } from "../core/run-command.js";
import type { SandboxLink } from "./sandbox-link.js";

/** The network mode a running sandbox's host-side table enforces, or null when it has none. */
export type ModeInForce = (typeof networkModes)[number] | null;

/**
 * Reads the mode from the sandbox's host-side table itself (its comment, "forage sandbox fN:
 * MODE", written with the rules it heads), not from the metadata: what `status` reports is what
 * the kernel enforces. A table that is missing (flushed by hand, a host firewall reload) is null.
 */
export async function networkModeInForce(link: Pick<SandboxLink, "namespace">): Promise<ModeInForce> {
  const { family, name } = hostPolicyTableRef(link);
  const listed = await runCommand("nft", ["list", "table", family, name], {
    reject: false,
    maxBuffer: 4_000_000,
    timeoutMs: 5000,
  });
  if (listed.exitCode !== 0) return null;
  const comment = new RegExp(`^\\s*comment "forage sandbox ${link.namespace}: ([a-z]+)"$`, "m").exec(
    listed.stdout,
  )?.[1];
  return networkModes.find((mode) => mode === comment) ?? null;
}
