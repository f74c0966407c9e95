import { runCommand } from "../../core/run-command.js";
import { printNftDeleteTable, printNftTable } from "../../../generator/emit/nft/index.js";
import type { Model, TemplateModel } from "../../../generator/model/model.js";
import { inSandboxTable, inSandboxTableRef } from "../../../generator/policy/network/in-sandbox-table.js";
import type { NetworkPolicy } from "../../../generator/policy/network/policy-schema.js";
import { templateProxyPort } from "../../../generator/policy/network/proxy-port.js";

/**
 * Loads the in-sandbox table of the policy's mode (none, restricted; full has none) into the
 * sandbox's namespace, replacing what is there. Defence in depth only: root in the sandbox can
 * change it, and the host-side table is what holds. Used at start and on every mode change, so
 * it never contradicts the host's policy (a NixOS system loads its template's table at boot).
 */
export async function applyInSandboxTable(
  namespace: string,
  settings: Model,
  template: TemplateModel,
  policy: NetworkPolicy,
): Promise<void> {
  const script =
    policy.mode === "full"
      ? printNftDeleteTable(inSandboxTableRef)
      : printNftTable(
          inSandboxTable(settings.host.network.base, policy.mode, templateProxyPort(settings, template), template.name),
          { replace: true },
        );
  const loaded = await runCommand("nsenter", [`--net=${namespace}`, "--", "nft", "-f", "-"], {
    input: script,
    reject: false,
  });
  if (loaded.exitCode !== 0) throw new Error(`could not load the in-sandbox table: ${loaded.stderr.trim()}`);
}
