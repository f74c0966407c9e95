import type { TemplateModel } from "../../../generator/model/model.js";
import type { RuntimeContext } from "../../core/context.js";
import { resolveAgentPrograms } from "../../provision/host-programs.js";
import { enterArgv } from "../../seccomp/sandbox-filter.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { Backend } from "../backend.js";
import { hostRootGaps } from "../shared/host-root-gaps.js";
import { hostRootInside, layOutHostRoot } from "../shared/host-root-layout.js";
import { nspawnUnavailable } from "../shared/host-tools.js";
import { adoptNspawnMember } from "./adopt-member.js";
import { nspawnQueries, startNspawn, stopNspawn, type NspawnRoot, type RootLayout } from "./nspawn-sandbox.js";

/** Host root (shared/host-root-layout.ts) with a placeholder that waits under nspawn's stub init as the agent. */
async function layOutNspawnHostRoot(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  root: string,
  template: TemplateModel,
): Promise<RootLayout> {
  return {
    binds: await layOutHostRoot(context, metadata, root, template),
    payload: { kind: "placeholder", user: context.settings.host.containerUsername, enter: enterArgv() },
    system: null,
  };
}

const hostRoot: NspawnRoot = { payload: "placeholder", layOut: layOutNspawnHostRoot };

/**
 * systemd-nspawn on a tmpfs root with the host's /usr read-only: any systemd Linux, no Nix. Its
 * payload waits under nspawn's stub init as the agent; forage-ctl opens the agent's session and
 * starts sshd in it.
 */
export const nspawnBackend: Backend = {
  name: "nspawn",
  capabilities: {
    nixosConfig: false,
    networkIsolation: true,
    ephemeralRoot: true,
    ssh: true,
    generatedFiles: true,
    resourceLimits: true,
    gracefulShutdown: true,
    pinnedBinds: true,
    ownInit: false,
    checkpoint: false,
  },
  inside: hostRootInside,
  describe: async () => "systemd-nspawn on a tmpfs root with the host's /usr read-only (any systemd Linux, no Nix)",
  unavailable: () => nspawnUnavailable(),
  // The agents' programs come from the host's /usr: a missing one is refused before anything is
  // made; what the host's /usr cannot give the template is said, never ignored in silence.
  async preflight(context, template) {
    await resolveAgentPrograms(template);
    for (const gap of hostRootGaps(template)) context.warn(gap);
  },
  start: (context, metadata, template) => startNspawn(context, metadata, template, hostRoot),
  stop: (context, metadata, graceSeconds) => stopNspawn(context, metadata, graceSeconds, hostRoot.payload),
  ...nspawnQueries,
  adopt: adoptNspawnMember,
};
