import { execa } from "execa";
import { printNftTable, type NftRule, type NftTable } from "../../generator/emit/nft/index.js";
import type { NetworkMode } from "../../generator/model/model.js";
import { SandboxError } from "../sandbox/errors.js";
import type { SandboxLink } from "./sandbox-link.js";

/** The host-side table of one sandbox: `inet forage_f<N>`. */
export function hostPolicyTableName(link: SandboxLink): string {
  return `forage_${link.namespace}`;
}

/**
 * The sandbox's policy, enforced on the host end of its veth (`ve-f<N>`), where nothing in the
 * sandbox — its root included — can list, flush or bypass it:
 * - input: the sandbox reaches no service of the host itself (replies to connections the host
 *   opened, such as ssh, still come back);
 * - forward: nothing leaves through the host unless the mode is full; and nothing else (another
 *   sandbox) opens a connection into this one through the host.
 * Refusals are resets / admin-prohibited, so tools fail at once instead of timing out.
 */
export function hostPolicyTable(link: SandboxLink, mode: NetworkMode): NftTable {
  const from = { kind: "iface", field: "iifname", value: link.hostInterface } as const;
  const to = { kind: "iface", field: "oifname", value: link.hostInterface } as const;
  const replies = { kind: "ctState", states: ["established", "related"] } as const;
  const refuse = (side: typeof from | typeof to, what: string): NftRule[] => [
    { match: [side, { kind: "l4proto", value: "tcp" }], counter: true, verdict: { reject: "tcp-reset" }, comment: what },
    { match: [side], counter: true, verdict: { reject: "admin-prohibited" }, comment: what },
  ];
  const outward: NftRule[] = mode === "full" ? [{ match: [from], verdict: "accept", comment: "full: routed out" }] : refuse(from, "sandbox to anywhere");
  return {
    family: "inet",
    name: hostPolicyTableName(link),
    comment: `forage sandbox ${link.namespace}: ${mode}`,
    sets: [],
    chains: [
      {
        name: "input",
        base: { type: "filter", hook: "input", priority: "filter", policy: "accept" },
        rules: [{ match: [from, replies], verdict: "accept" }, ...refuse(from, "sandbox to host")],
      },
      {
        name: "forward",
        base: { type: "filter", hook: "forward", priority: "filter", policy: "accept" },
        rules: [{ match: [from, replies], verdict: "accept" }, ...outward, { match: [to, replies], verdict: "accept" }, ...refuse(to, "into the sandbox")],
      },
    ],
  };
}

/** Loads (or atomically replaces) the sandbox's host-side table. */
export async function applyHostPolicy(link: SandboxLink, mode: NetworkMode): Promise<void> {
  const loaded = await execa("nft", ["-f", "-"], { input: printNftTable(hostPolicyTable(link, mode), { replace: true }), reject: false });
  if (loaded.exitCode !== 0) throw new SandboxError(`could not load the network policy of ${link.namespace}: ${loaded.stderr.trim()} (is nftables installed?)`, "container");
}

/** Removes the sandbox's host-side table; absent is fine. */
export async function removeHostPolicy(link: SandboxLink): Promise<void> {
  await execa("nft", ["delete", "table", "inet", hostPolicyTableName(link)], { reject: false });
}
