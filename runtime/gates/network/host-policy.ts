import { runCommand } from "../../core/run-command.js";
import { printNftTable } from "../../../generator/emit/nft/index.js";
import {
  hostPolicyTable,
  hostPolicyTableRef,
  type GuardServices,
} from "../../../generator/policy/network/host-table.js";
import type { NetworkPolicy } from "../../../generator/policy/network/policy-schema.js";
import { SandboxError } from "../../core/errors.js";
import type { SandboxLink } from "./sandbox-link.js";

/** Loads (or atomically replaces) the sandbox's host-side table (host-table.ts builds it). */
export async function applyHostPolicy(
  link: SandboxLink,
  policy: NetworkPolicy,
  services: GuardServices | null,
  externalInterface: string | null,
  proxyPort: number | null,
): Promise<void> {
  const loaded = await runCommand("nft", ["-f", "-"], {
    input: printNftTable(hostPolicyTable(link, policy, services, externalInterface, proxyPort), { replace: true }),
    reject: false,
  });
  if (loaded.exitCode !== 0)
    throw new SandboxError(
      `could not load the network policy of ${link.namespace}: ${loaded.stderr.trim()} (is nftables installed?)`,
      "container",
    );
}

/** Removes the sandbox's host-side table; absent is fine. */
export async function removeHostPolicy(link: SandboxLink): Promise<void> {
  const { family, name } = hostPolicyTableRef(link);
  await runCommand("nft", ["delete", "table", family, name], { reject: false });
}
