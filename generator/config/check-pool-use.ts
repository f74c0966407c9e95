import type { FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * A warm pool (`pool.size` above 0) on a template whose sandboxes run on another runtime than the
 * host root's ("nspawn"): refused at the template's own key, with the reason. Its members are
 * started before anyone claims them, and a claim then binds the workspace into the running
 * container: nspawn-nix and extra-container boot a NixOS init that opens the agent's session at
 * boot (before the workspace is there), and gVisor serves only the binds its start named.
 * A template that leaves `runtime` to the host is let through; where the host picks nspawn-nix,
 * the daemon says so and keeps no pool. Runs on sound `extends`.
 */
export function checkPoolUse(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const { name, template } of flat) {
    const size = template.pool?.size ?? 0;
    const runtime = template.runtime;
    if (size === 0 || runtime === undefined || runtime === null || runtime === "nspawn") continue;
    const own = config.templates[name];
    // Said where it is written: a template that inherits both is its parent's to fix.
    if (own?.pool?.size === undefined && own?.runtime === undefined) continue;
    const at = own.pool?.size !== undefined ? ["pool", "size"] : ["runtime"];
    problems.push({
      path: ["templates", name, ...at],
      atKey: true,
      message: `pool keeps sandboxes started ahead, and runtime "${runtime}" cannot take a workspace into one that runs (${whyNot(runtime)}): set runtime: nspawn, or pool.size: 0`,
    });
  }
  return problems;
}

function whyNot(runtime: string): string {
  return runtime === "gvisor"
    ? "gVisor serves only the binds its start named"
    : "its NixOS init opens the agent's session at boot, before any workspace is there";
}
