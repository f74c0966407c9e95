import { z } from "zod";
import { networkPolicySchema } from "../../generator/policy/network/policy-schema.js";
import { sandboxNamePattern } from "../core/names.js";
import { templateNamePattern } from "../../generator/lib/template-name.js";
import { portForwardsSchema } from "./port-forward-schema.js";

/**
 * A sandbox's metadata, `<state>/sandboxes/<name>.json`. Everything needed to start, reset or
 * remove it again, so a restarted daemon can re-adopt it. Validated on every read: the state
 * directory is input like any other.
 */
/** One directory bound into a sandbox: as is (direct), or a jj workspace / git worktree we made. */
export const workspaceMountSchema = z.strictObject({
  mode: z.enum(["direct", "jj", "git-worktree"]),
  /** The host directory bound into the sandbox. */
  hostPath: z.string().startsWith("/"),
  /** Created by forage-ctl under the state directory and removed on down; never a direct mount. */
  managed: z.boolean(),
  /** The repository a jj workspace or git worktree belongs to. */
  sourceRepo: z.string().startsWith("/").optional(),
  /** The jj workspace name, or the git branch checked out. */
  vcsName: z.string().max(255).optional(),
  /** git: the branch was made for this sandbox (deleted on down when merged). */
  ownBranch: z.boolean().optional(),
  /**
   * The repository's shared stores (jj: <repo>/.jj/repo, and .git when colocated; git: the common
   * .git and this worktree's directory in it), bound at their own paths so the workspace's
   * pointers resolve inside. Recorded when the workspace is made, never read back from the
   * workspace (which the sandbox can write).
   */
  stores: z
    .array(
      z.strictObject({
        kind: z.enum(["git", "jj"]),
        path: z.string().startsWith("/"),
        worktreeDir: z.string().startsWith("/").optional(),
      }),
    )
    .optional(),
  /** workspace.maxSize: the btrfs subvolume forage-ctl made this managed workspace, and its limit. */
  quota: z
    .strictObject({
      bytes: z.number().int().positive(),
      subvolumeId: z.number().int().min(256),
      filesystem: z.string().startsWith("/"),
    })
    .optional(),
});

/** A template mount (workspace.mounts): where it appears, and whether the sandbox may write it. */
export const namedMountSchema = workspaceMountSchema.extend({
  name: z.string().regex(templateNamePattern),
  containerPath: z.string().startsWith("/"),
  readOnly: z.boolean(),
});

export type WorkspaceMount = z.infer<typeof workspaceMountSchema>;
export type NamedMount = z.infer<typeof namedMountSchema>;

import { sandboxRuntimes } from "../../generator/config/runtime-names.js";

export { sandboxRuntimes, type SandboxRuntime } from "../../generator/config/runtime-names.js";

export const sandboxMetadataSchema = z.strictObject({
  version: z.literal(1),
  name: z.string().regex(sandboxNamePattern),
  template: z.string().regex(templateNamePattern),
  /** 1-254: host side <base>.N.1, sandbox <base>.N.2, container name f<N>. */
  slot: z.number().int().min(1).max(254),
  containerName: z.string().regex(/^f[0-9]{1,3}$/),
  runtime: z.enum(sandboxRuntimes),
  createdAt: z.string(),
  /** "creating" until `up` finishes; a creating sandbox whose creator died is an orphan for gc. */
  phase: z.enum(["creating", "ready"]),
  creatorPid: z.number().int().positive(),
  /** What is bound at the workspace path (/workspace). */
  workspace: workspaceMountSchema,
  /** The template's other mounts, in the order they are bound. */
  mounts: z.array(namedMountSchema).default([]),
  agentIdentity: z.strictObject({
    gitUser: z.string().optional(),
    gitEmail: z.string().optional(),
    sshKeyPath: z.string().optional(),
  }),
  uid: z.number().int().min(1),
  gid: z.number().int().min(0),
  /** The running container's supervisor (systemd-nspawn) pid, or null when stopped. */
  pid: z.number().int().positive().nullable(),
  startedAt: z.string().nullable(),
  /** The NixOS system the running sandbox booted (nspawn-nix, extra-container), or null. */
  system: z.string().startsWith("/nix/store/").nullable().default(null),
  /** The cgroup directories holding the running sandbox (recorded: the caller's own cgroup may differ later). */
  cgroup: z
    .strictObject({
      procsFiles: z.array(z.string().startsWith("/sys/fs/cgroup/")),
      directories: z.array(z.string().startsWith("/sys/fs/cgroup/")),
    })
    .nullable(),
  /** The host user's tmux configuration, mounted read-only for the agent (off with --no-mux-config). */
  muxConfig: z.string().startsWith("/").nullable(),
  /** Public keys that may log in over SSH (the config's, plus --ssh-key at up). */
  authorizedKeys: z.array(z.string().max(1024)),
  /** Secret names copied for this sandbox. */
  secrets: z.array(z.string()),
  /**
   * The network policy in force: the template's at up, then whatever `forage-ctl network` set
   * (kept across restarts of the sandbox and of the daemon). Null only in metadata written before
   * policies were recorded: the template's then applies.
   */
  network: networkPolicySchema.nullable().default(null),
  /** The running sandbox's network guard (DNS filter, denial recorder), or null when stopped. */
  guard: z
    .strictObject({
      pid: z.number().int().positive(),
      dnsPort: z.number().int().min(1).max(65535),
      tlsPort: z.number().int().min(1).max(65535),
      httpPort: z.number().int().min(1).max(65535),
    })
    .nullable()
    .default(null),
  /**
   * `forage-ctl port`'s forwards (host 127.0.0.1:hostPort → the sandbox's port): kept across stop,
   * start and reset (they open with the sandbox's guard), gone with the metadata on down. Absent: none.
   */
  ports: portForwardsSchema.optional(),
  /**
   * The SSH agent served to the sandbox (the template's sshAgent, or up --ssh-agent): which keys
   * (host paths, "~/" expanded, or fingerprints of the user's own agent's keys) and whether every
   * signature is asked. Null: none, and no SSH_AUTH_SOCK inside. upstreamSocket: the user's own
   * agent (their SSH_AUTH_SOCK at up, start or reset), there only when keys name fingerprints.
   */
  sshAgent: z
    .strictObject({
      keys: z.array(z.string().min(1).max(4096)).min(1).max(16),
      confirm: z.boolean(),
      upstreamSocket: z.string().startsWith("/").max(107).exactOptional(),
    })
    .nullable()
    .default(null),
  /**
   * The push gate (the template's pushGate): the sandbox's pushes go to a gate on the host that
   * refuses or asks (runtime/gates/push-gate/). protectedBranches null: the upstream's default branch, main
   * and master. alwaysPushed: the refs approved `--always` at their URL, later fast-forwards of which
   * go unasked (absent: none). Null (and absent, in metadata written before it existed): no gate.
   */
  pushGate: z
    .strictObject({
      protectedBranches: z.array(z.string().min(1).max(255)).min(1).max(64).nullable(),
      alwaysPushed: z
        .array(
          z.strictObject({ url: z.string().min(1).max(4096), ref: z.string().startsWith("refs/heads/").max(1024) }),
        )
        .max(256)
        .exactOptional(),
    })
    .nullable()
    .default(null),
  /**
   * Tools of the template's MCP servers a human approved `--always` for this sandbox (the MCP gate,
   * runtime/gates/mcp-gate/): server name → tool names, called without asking while it lives
   * (unless the template's policy comes to deny them). Absent: none.
   */
  mcpAlwaysAllowed: z
    .record(z.string().regex(/^[a-z][a-z0-9-]{0,63}$/), z.array(z.string().min(1).max(256)).max(256))
    .exactOptional(),
  /**
   * A stdio MCP server's sandbox (runtime/sandbox/mcp-server-sandboxes.ts): the agent's sandbox it
   * serves (its name and creation), and the server's name in that sandbox's template. It is made
   * with that sandbox and removed with it. Absent: a sandbox of its own.
   */
  mcpServerOf: z
    .strictObject({
      sandbox: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
      createdAt: z.string().min(1).max(64),
      server: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/),
    })
    .exactOptional(),
  /**
   * A warm pool's member (runtime/sandbox/pool-*.ts): running, holding no workspace, secret, identity or
   * network, until an `up` of its template claims it. `key` is its template's settings when it
   * was made (poolKey): a member whose template changed since is replaced. Absent: a sandbox.
   */
  pool: z.strictObject({ key: z.string().regex(/^[0-9a-f]{16}$/) }).exactOptional(),
  /**
   * A claimed member's name, which its running container's root still has (a mounted root cannot
   * be renamed): until its next stop, when it gets a root of its own name. Absent: its own name.
   */
  rootKey: z.string().regex(sandboxNamePattern).exactOptional(),
});

export type SandboxMetadata = z.infer<typeof sandboxMetadataSchema>;

/** The same sandbox once stopped: nothing of a running container is left in it (a claimed member's root neither). */
export function stoppedMetadata(metadata: SandboxMetadata): SandboxMetadata {
  const { rootKey: _root, ...rest } = metadata;
  return { ...rest, pid: null, startedAt: null, cgroup: null, system: null, guard: null };
}

/** The name the running container's root was made under: a claimed pool member's, or the sandbox's own. */
export function rootKeyOf(metadata: Pick<SandboxMetadata, "name" | "rootKey">): string {
  return metadata.rootKey ?? metadata.name;
}
