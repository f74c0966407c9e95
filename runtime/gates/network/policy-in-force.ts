import { hostPolicyTableRef } from "../../../generator/policy/network/host-table.js";
import { networkModes } from "../../../generator/config/network-modes.js";
import { runCommand } from "../../core/run-command.js";
import type { SandboxLink } from "./sandbox-link.js";

/**
 * The network mode a running sandbox's host-side table enforces; "missing" when it has no table
 * (nothing of its policy holds on the host), "unreadable" when nft could not say (it failed
 * otherwise, or the comment is not one of ours): not knowing is not reported as missing.
 */
export type ModeInForce = (typeof networkModes)[number] | "missing" | "unreadable";

/**
 * Reads the mode from the sandbox's host-side table itself (its comment, "forage sandbox fN:
 * MODE", written with the rules it heads), not from the metadata: what `status` reports is what
 * the kernel enforces. `nft -t` leaves the sets' elements out (a restricted sandbox's can be many).
 */
export async function networkModeInForce(link: Pick<SandboxLink, "namespace">): Promise<ModeInForce> {
  const { family, name } = hostPolicyTableRef(link);
  const listed = await runCommand("nft", ["-t", "list", "table", family, name], { reject: false, timeoutMs: 5000 });
  if (listed.exitCode !== 0) return /No such file or directory/.test(listed.stderr) ? "missing" : "unreadable";
  const comment = new RegExp(`^\\s*comment "forage sandbox ${link.namespace}: ([a-z]+)"$`, "m").exec(
    listed.stdout,
  )?.[1];
  return networkModes.find((mode) => mode === comment) ?? "unreadable";
}
