import type { PhaseTiming } from "../core/phase-clock.js";
import type { SeccompStatus } from "../seccomp/status.js";
import type { PortForward } from "../state/port-spec.js";

/** One sandbox as ps and status show it. */
export interface SandboxView {
  name: string;
  template: string;
  address: string;
  workspaceMode: string;
  /** The jj workspace or git branch the sandbox works on, or null for a directory as is. */
  workspaceVcs: string | null;
  /** nspawn (host /usr), nspawn-nix (the template's NixOS system), extra-container or gvisor. */
  runtime: string;
  /** What answers the sandbox's system calls and which network stack it uses (Backend.kernel). */
  kernel?: string;
  workspace: string;
  /** The repository the jj workspace or git worktree was made from, or null for a directory as is. */
  sourceRepo: string | null;
  /** A stdio MCP server's sandbox: the sandbox it serves and the server's name (it goes with that sandbox); absent otherwise. */
  mcpServerOf?: { sandbox: string; server: string; createdAt: string };
  /** True for a warm pool's member (runtime/sandbox/pool-*.ts): started ahead, nobody's, until an `up` of its template claims it. */
  pool: boolean;
  /** checkpointed: saved whole by `forage-ctl checkpoint`, running nothing until `restore`. */
  status: "running" | "no-session" | "stopped" | "checkpointed";
  slot: number;
  containerName: string;
  startedAt: string | null;
  createdAt: string;
  pid: number | null;
  /** The agent user inside, who SSH logs in as. */
  user: string;
  /** The sandbox's pinned SSH host key ("ssh-ed25519 AAAA…"), or null without SSH. */
  sshHostKey: string | null;
  /**
   * The limits in force (null: lifted with "infinity"): a running sandbox's read from its cgroup,
   * a stopped one's the template's, which its next start applies; null when the template is gone.
   */
  resourceLimits: { cpuQuota: string | null; memoryMax: string | null; tasksMax: number | null } | null;
  /** Where resourceLimits came from: the running sandbox's cgroup, or the template (stopped). */
  resourceLimitsFrom: "cgroup" | "template";
  /**
   * The network mode: for a running sandbox the one its host-side nftables table enforces (null:
   * the table is missing, so nothing of its policy holds on the host; "unknown": nft could not
   * say), for a stopped one what its next start applies (its recorded policy, else its template's).
   */
  network: { mode: string | null; from: "table" | "metadata" };
  /** The API proxy, for a template with agents behind it: whether one serves the sandbox now, and where; null otherwise. */
  apiProxy: { served: boolean; address: string | null } | null;
  /** The primary workspace's disk limit (workspace.maxSize) and its use now (null: not known), or null without one. */
  workspaceDisk: { limitBytes: number; usedBytes: number | null } | null;
  /** The seccomp filter: what it allows back, a warning when that is anything, what it refused. */
  seccomp: SeccompStatus;
  /** `forage-ctl port`'s forwards: host 127.0.0.1:hostPort → the sandbox's port (open while it runs). */
  ports: PortForward[];
  /** The push gate (null: none): the template's protected branches (null: the upstream's default), and the refs approved `--always` at their URL. */
  pushGate: { protectedBranches: string[] | null; alwaysPushed: { url: string; ref: string }[] } | null;
  /** The template's MCP servers as the MCP gate serves them to this sandbox (null: none, or the template is gone). */
  mcp?: McpView | null;
}

/** One sandbox's MCP servers: where it reaches each (the gate), where the gate sends it, its token's secret, its policy. */
export interface McpView {
  servers: {
    name: string;
    /** The sandbox's URL of it: the gate on the proxy's port at its host end. */
    gateUrl: string;
    /** The server's own endpoint, which only the gate reaches; null for a stdio server. */
    url: string | null;
    /** The secret holding its token, or null. */
    secret: string | null;
    /** A stdio server's program and arguments, or null. */
    command: string[] | null;
    /** The sandbox a stdio server runs in (made with this one), or null. */
    sandbox: string | null;
    /** A stdio server's environment variables, each the name of the secret it holds (only in the server's sandbox). */
    env: Record<string, string>;
    allow: string[];
    ask: string[];
    deny: string[];
    /** Tools a human approved --always for this sandbox. */
    alwaysAllowed: string[];
  }[];
}

/** What `up` answers: the new sandbox, and with `timings`, where the time went. */
export interface UpResult extends SandboxView {
  timings?: { phases: PhaseTiming[]; totalMs: number };
}
