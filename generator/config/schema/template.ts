import { z } from "zod";
import { inputShape } from "./defaulted-settings.js";
import { templateSettings } from "./template-settings.js";
import { mcpSchema } from "./mcp.js";
import { proxyFilterSchema } from "./proxy-filter.js";
import { networkModes } from "../network-modes.js";
import { protectedPaths } from "./protected-paths.js";
import { agentSchema } from "./agent.js";
import { allowList } from "./allow-entry.js";
import { agentName, packageRef, templateName, templateNamePattern } from "./names.js";
import { identitySchema } from "./identity.js";
import { mountSchema, beadsSchema } from "./workspace.js";
import { seccompSchema } from "./seccomp.js";
import { agentContextSchema } from "./agent-context.js";
import { sizePattern } from "./size-pattern.js";
import { tmuxWindowSchema } from "./tmux-window.js";
import { cpuQuota } from "./shared-limits.js";

/*
 * Template fields carry no zod defaults: a template may `extends` another, and a default filled in
 * here would silently override the parent's value. Defaults are applied after inheritance, in
 * model/resolve-template.ts, and each description says what the default is.
 */

const networkObject = z
  .strictObject({
    mode: z.enum(networkModes).describe("none: loopback only; restricted: only `allow`; full: NAT to the internet."),
    allow: allowList
      .optional()
      .describe('Hosts reachable in restricted mode: "host", "*.suffix", optional ":port". Default: none.'),
    sni: z
      .boolean()
      .optional()
      .describe(
        "Also check TLS SNI / HTTP Host against `allow` (refuses other names on shared CDN addresses). Default: false.",
      ),
    ask: z
      .boolean()
      .optional()
      .describe(
        "Ask the human (forage-ctl approvals) about a name not in `allow` instead of refusing it: the DNS filter holds it, nothing leaves, until approved, denied or the deadline passes. Default: false.",
      ),
  })
  .refine((n) => n.mode === "restricted" || n.allow === undefined || n.allow.length === 0, {
    error: 'allow only applies to mode "restricted": set mode to "restricted" or remove allow',
  })
  .refine((n) => n.mode === "restricted" || n.sni !== true, {
    error:
      'sni only applies to mode "restricted" (it checks names against allow): set mode to "restricted" or remove sni',
  })
  .refine((n) => n.mode === "restricted" || n.ask !== true, {
    error:
      'ask only applies to mode "restricted" (it asks about names not in allow): set mode to "restricted" or remove ask',
  });

export const networkSchema = z
  .union([z.enum(networkModes), networkObject])
  // In NixOS a bare mode becomes { mode = …; }, so modules always read network.mode.
  .meta({
    nixCoerceTo: "mode",
    description: 'Network policy: "none", "restricted", "full", or { mode, allow, sni, ask }. Default: "none".',
  });

/** systemd's word for "no limit"; a limit is lifted only when a template says so. */
const unlimited = z.enum(["infinity"]);

const resourceLimitsSchema = z
  .strictObject({
    cpuQuota: cpuQuota.optional().describe('CPU quota as systemd CPUQuota=, e.g. "200%". Default: none.'),
    memoryMax: z
      .string()
      .regex(/^([1-9][0-9]{0,6}[KMGT]?|infinity)$/, {
        error: 'must be bytes with an optional K/M/G/T suffix, e.g. "4G", or "infinity" for no limit',
      })
      .optional()
      .describe(
        'Memory limit as systemd MemoryMax=, e.g. "8G"; it also caps the tmpfs mounts (root 1/2, /tmp 1/4, /dev/shm 1/8, /run 1/16 of it). Default: "4G". "infinity" lifts it (status shows it).',
      ),
    tasksMax: z
      .union([
        z
          .number()
          .int({ error: "must be a whole number" })
          .min(16, { error: "must be at least 16 (an agent with git and a shell needs a few dozen tasks)" })
          .max(1_000_000),
        unlimited,
      ])
      .optional()
      .describe(
        'Maximum number of tasks (processes and threads), systemd TasksMax=. Default: 4096. "infinity" lifts it (status shows it).',
      ),
  })
  .describe(
    "Resource limits applied to the whole sandbox (its cgroup, or its systemd unit). Default: 4G of memory, 4096 tasks.",
  );

/** A key the SSH agent offers: a private key file of the user's, or a key of the user's own agent by fingerprint. */
const sshAgentKey = z
  .string()
  .max(4096)
  .regex(/^(SHA256:[A-Za-z0-9+/]{43}|~\/[^\u0000]+|\/[^\u0000]+)$/, {
    error:
      'must be a private key file ("~/.ssh/id_ed25519" or an absolute path) or a fingerprint of a key in your own agent ("SHA256:…", as ssh-add -l shows it)',
  });

const sshAgentSchema = z
  .strictObject({
    keys: z
      .array(sshAgentKey)
      .min(1, { error: "must name at least one key (a file or a fingerprint)" })
      .max(16)
      .describe(
        'The keys the sandbox may ask to sign with: unencrypted private key files of yours ("~/.ssh/id_ed25519"; Ed25519, RSA, ECDSA), read on the host and never copied in, or fingerprints ("SHA256:…") of keys in your own agent (SSH_AUTH_SOCK), to which each signature is relayed. Only these are listed.',
      ),
    confirm: z
      .boolean()
      .optional()
      .describe(
        "Ask for every signature through the approvals queue (forage-ctl approve ID [--for 10m]); false signs without asking and records each signature in the audit log. Default: true.",
      ),
  })
  .describe(
    "An SSH agent on the host, served into the sandbox as SSH_AUTH_SOCK: private keys stay on the host, and each signature is approved. Default: none.",
  );

/** A branch the push gate never pushes: a name as git allows it ("main", "release/1.x"), or a full "refs/heads/…" name. */
const protectedBranch = z
  .string()
  .max(255)
  .regex(/^(?!.*\.\.)(?!.*\/\/)(?!.*\.lock$)(?!.*\/$)[A-Za-z0-9][A-Za-z0-9._/-]*$/, {
    error:
      'must be a branch name as git allows it, e.g. "main" or "release/1.x" (letters, digits, ".", "_", "-" and "/"; no "..", "//" or trailing "/")',
  });

const pushGateSchema = z
  .strictObject({
    enable: z
      .boolean()
      .optional()
      .describe("Send the sandbox's git pushes through the push gate. Default: true (writing pushGate turns it on)."),
    protectedBranches: z
      .array(protectedBranch)
      .min(1, {
        error:
          "must name at least one branch (leave it out for the defaults: the upstream's default branch, main and master)",
      })
      .max(64)
      .optional()
      .describe(
        "Branches a push from the sandbox is refused for outright, without asking. Written, exactly these (the defaults are not added). Default: the upstream's default branch (its HEAD), main and master.",
      ),
  })
  // Only an enabled gate reads its branches: a list beside enable off would be read by nothing.
  .superRefine((gate, context) => {
    if (gate.enable !== false || gate.protectedBranches === undefined) return;
    context.addIssue({
      code: "custom",
      path: ["protectedBranches"],
      params: { atKey: true },
      message:
        "pushGate.protectedBranches says which branches the push gate refuses, and pushGate.enable is off: remove enable: false, or protectedBranches",
    });
  })
  .describe(
    "Gated git push: the sandbox holds no push credential; its remotes push to a gate on the host, which refuses force pushes, deletions and protected branches outright, asks for every other push through the approvals queue (branch, commits, diffstat), and on approval pushes as you with your own git configuration. Default: none.",
  );

export const templateSchema = z
  .strictObject({
    ...inputShape(templateSettings),
    extends: z
      .union([templateName, z.array(templateName).min(1).max(8)])
      .optional()
      // Flattened by the generator; the NixOS module only ever sees resolved templates.
      .meta({
        nixType: "omit",
        description: "Template(s) to inherit from; later ones and this template override earlier ones.",
      }),
    agents: z
      .record(agentName, agentSchema)
      .optional()
      .describe("Agents by name; the name is the command on the agent's PATH. Merged by name with parents."),
    extraPackages: z
      .array(packageRef)
      .max(256)
      .optional()
      .describe('Extra nixpkgs attribute paths installed in the sandbox, e.g. ["nodejs_22", "python3Packages.black"].'),
    network: networkSchema.optional(),
    allowedHosts: allowList
      .optional()
      // The reference's spelling, rewritten into `network` by adoptReferenceSpellings before
      // anything else reads the template; the NixOS module accepts it too (its users write it in
      // Nix) and maps it in modules/options/template-internal.nix, with a warning.
      .meta({
        deprecated: true,
        description:
          'The reference\'s spelling of network.allow, accepted so its configs load: write network: { mode: "restricted", allow: [...] } instead. Without `network` it means mode "restricted".',
      }),
    resourceLimits: resourceLimitsSchema.optional(),
    agentIdentity: identitySchema.optional(),
    workspace: z
      .strictObject({
        mounts: z
          .record(
            z.string().regex(templateNamePattern, { error: "mount names must be 1-32 characters of a-z, 0-9 and '-'" }),
            mountSchema,
          )
          .optional()
          .describe("Extra workspaces by name: host paths or repositories mounted at chosen paths."),
        useBeads: beadsSchema.optional(),
        unprotected: z
          .array(z.enum(protectedPaths))
          .max(protectedPaths.length)
          .optional()
          .describe(
            `Protected workspace paths the agent may write after all (by default read-only: ${protectedPaths.join(", ")}).`,
          ),
        maxSize: z
          .string()
          .regex(sizePattern, { error: 'must be bytes with an optional K/M/G/T suffix, e.g. "10G"' })
          .optional()
          .describe(
            'Disk limit for each workspace forage-ctl creates (jj workspace or git worktree), e.g. "10G": made a btrfs subvolume with a qgroup limit, so writes past it fail with "Disk quota exceeded". Needs the state directory on btrfs with quotas enabled (`btrfs quota enable MOUNTPOINT`); otherwise `up` refuses, as it does for writable direct mounts (-w, --direct, hostPath). Default: none.',
          ),
      })
      .optional()
      .describe("Composable workspace mounts."),
    tmuxWindows: z
      .array(tmuxWindowSchema)
      .max(32)
      .optional()
      .describe("tmux windows to open instead of one window per agent."),
    sshAgent: sshAgentSchema.optional(),
    pushGate: pushGateSchema.optional(),
    mcp: mcpSchema.optional(),
    proxyFilter: proxyFilterSchema.optional(),
    seccomp: seccompSchema.optional(),
    context: agentContextSchema.optional(),
  })
  .superRefine(refuseAllowedHostsConflicts)
  .meta({
    nixModule: "template",
    description: "A sandbox template: what a sandbox created from it contains and may reach.",
  });

/**
 * `allowedHosts` (the reference's spelling) is `network.allow` in another place: both at once
 * would leave one list silently unused, and a list beside a mode that ignores lists would too.
 */
function refuseAllowedHostsConflicts(
  template: { network?: z.output<typeof networkSchema> | undefined; allowedHosts?: string[] | undefined },
  ctx: z.RefinementCtx,
): void {
  const { network, allowedHosts } = template;
  if (allowedHosts === undefined) return;
  // Reported at the key: the fix is to remove or move it.
  const refuse = (message: string): void =>
    ctx.addIssue({ code: "custom", path: ["allowedHosts"], params: { atKey: true }, message });
  if (typeof network === "object" && network.allow !== undefined) {
    refuse(
      "allowedHosts (the reference's spelling) and network.allow both list the allowed hosts: keep one list, in network.allow",
    );
    return;
  }
  const mode = typeof network === "object" ? network.mode : network;
  if (mode !== undefined && mode !== "restricted" && allowedHosts.length > 0) {
    refuse(
      `allowedHosts only applies to network "restricted", and this template's network is "${mode}": write network: { mode: "restricted", allow: [...] } with these hosts, or remove allowedHosts`,
    );
  }
}

export type TemplateInput = z.input<typeof templateSchema>;
/** A template as written: the reference's spellings (allowedHosts) may still be in it. */
export type WrittenTemplate = z.output<typeof templateSchema>;
/** A template in Forage's own spelling only (see adoptReferenceSpellings): what everything after loading reads. */
export type Template = Omit<WrittenTemplate, "allowedHosts"> & { allowedHosts?: never };
