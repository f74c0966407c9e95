import { z } from "zod";
import { gvisorPlatforms, gvisorStacks, sandboxRuntimes } from "../runtime-names.js";
import { setting, settingGroup, settingOrNull } from "./defaulted-settings.js";

/**
 * A template's settings that are one value with a default. Each is written only here: the
 * config's field, forage.json's, the resolved model's and the NixOS option all come from this
 * table (defaulted-settings.ts), so a new one is a line here. Settings whose resolved form differs
 * from what is written (network, agents, workspace mounts, limits that "infinity" lifts) are
 * spelled out in template.ts and resolved in model/resolve-template.ts.
 */
export const templateSettings = {
  description: setting(
    z
      .string()
      .max(200, { error: "must be at most 200 characters (it is one line in `forage-ctl templates`)" })
      // One line: it is a table cell and a comment in generated files.
      .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "must be one line without control characters" }),
    "",
    "One line shown by `forage-ctl templates`.",
  ),
  readOnlyWorkspace: setting(z.boolean(), false, "Mount every workspace read-only. Default: false."),
  initCommands: setting(
    z.array(z.string().min(1).max(4096)).max(64),
    [],
    "Commands run as the agent in /workspace after start; failures warn. Default: none.",
  ),
  multiplexer: setting(
    z.enum(["tmux"], {
      // The reference's other value: accepted and ignored there, refused here with the reason.
      error:
        'must be "tmux" (or left out): every sandbox\'s agent session is a tmux session. "wezterm" (a WezTerm mux server in the sandbox) is not supported: WezTerm is not packaged for the roots sandboxes run on; from WezTerm, use forage-ctl attach',
    }),
    "tmux",
    'Terminal multiplexer of the agent session: "tmux", the only one (attach with forage-ctl attach). Default: "tmux".',
  ),
  ssh: setting(
    z.boolean(),
    false,
    "Run sshd in the sandbox (keys only; its host key is generated at up and pinned on the host). Default: false.",
  ),
  runtime: settingOrNull(
    z.enum(sandboxRuntimes),
    'The runtime this template\'s sandboxes get (forage-ctl runtime lists them; up --runtime overrides): "nspawn" (the host\'s /usr), "nspawn-nix" (the template\'s NixOS system), "extra-container" (a NixOS container), "gvisor" (the host\'s /usr under gVisor: a second kernel between the agent and the host\'s). Default: nspawn-nix where the template has a prebuilt system, else nspawn.',
  ),
  gvisor: settingGroup(
    {
      platform: setting(
        z.enum(gvisorPlatforms),
        "auto",
        'How gVisor intercepts the agent\'s system calls: "auto" (systrap where runsc has it, else ptrace; kvm only where a probe boots a guest), "systrap", "ptrace" or "kvm". Default: "auto".',
      ),
      network: setting(
        z.enum(gvisorStacks),
        "sandbox",
        "Which network stack answers the agent's socket calls: \"sandbox\" (gVisor's own, netstack: none reaches the host's kernel) or \"host\" (the host's, in the sandbox's namespace: UDP and ICMP refusals arrive at once, and the host's kernel answers socket calls). Both leave through the sandbox's veth and host-side table. Default: \"sandbox\".",
      ),
    },
    "Settings of the gvisor runtime.",
  ),
  pool: settingGroup(
    {
      size: setting(
        z
          .number()
          .int({ error: "must be a whole number of sandboxes" })
          .min(0, { error: "must be 0 (no pool) or more" })
          .max(16, { error: "must be at most 16: each member holds a slot and ~10 MiB while it waits" }),
        0,
        'How many sandboxes of this template forage-ctl\'s daemon keeps started ahead, holding no workspace, secret, identity or network until an `up` (or `run`) claims one; the daemon makes another behind each claim. Host root (runtime "nspawn") only. Default: 0 (none).',
      ),
    },
    "A warm pool: sandboxes started ahead so that `up` costs about what `exec` does.",
  ),
  useProxy: setting(
    z.boolean(),
    false,
    "Send agents' API traffic through the host's API proxy so keys stay on the host (agents' auth defaults to \"proxy\"). Default: false.",
  ),
};
