import { z } from "zod";
import { sandboxNamePattern } from "../names.js";

/**
 * A sandbox's metadata, `<state>/sandboxes/<name>.json`. Everything needed to start, reset or
 * remove it again, so a restarted daemon can re-adopt it. Validated on every read: the state
 * directory is input like any other.
 */
export const sandboxMetadataSchema = z.strictObject({
  version: z.literal(1),
  name: z.string().regex(sandboxNamePattern),
  template: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
  /** 1-254: host side <base>.N.1, sandbox <base>.N.2, container name f<N>. */
  slot: z.number().int().min(1).max(254),
  containerName: z.string().regex(/^f[0-9]{1,3}$/),
  /**
   * nspawn: tmpfs root on the host's /usr; nspawn-nix: the template's NixOS system booted from its
   * init; extra-container: a NixOS container (container@f<N>.service) made by extra-container.
   */
  runtime: z.enum(["nspawn", "nspawn-nix", "extra-container"]),
  createdAt: z.string(),
  /** "creating" until `up` finishes; a creating sandbox whose creator died is an orphan for gc. */
  phase: z.enum(["creating", "ready"]),
  creatorPid: z.number().int().positive(),
  workspace: z.strictObject({
    mode: z.enum(["direct", "jj", "git-worktree"]),
    hostPath: z.string().startsWith("/"),
    managed: z.boolean(),
  }),
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
  /** The cgroup directories holding the running sandbox (recorded: the caller's own cgroup may differ later). */
  cgroup: z.strictObject({ procsFiles: z.array(z.string().startsWith("/sys/fs/cgroup/")), directories: z.array(z.string().startsWith("/sys/fs/cgroup/")) }).nullable(),
  /** The host user's tmux configuration, mounted read-only for the agent (off with --no-mux-config). */
  muxConfig: z.string().startsWith("/").nullable(),
  /** Public keys that may log in over SSH (the config's, plus --ssh-key at up). */
  authorizedKeys: z.array(z.string().max(1024)),
  /** Secret names copied for this sandbox. */
  secrets: z.array(z.string()),
});

export type SandboxMetadata = z.infer<typeof sandboxMetadataSchema>;
