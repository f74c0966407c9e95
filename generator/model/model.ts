import type { GvisorPlatform, SandboxRuntime } from "../config/runtime-names.js";
import type { AuthMode, ProviderName } from "../config/schema/agent-api.js";
import type { LoginFlavor, LoginKind } from "../config/agent-logins.js";
import type { Identity } from "../config/schema/identity.js";
import type { ProtectedPath } from "../config/schema/protected-paths.js";
import type { ProxyMethod } from "../config/schema/proxy-filter.js";

/**
 * The resolved model: every default applied, every `extends` flattened, every derived name
 * computed. Plain data only, so targets are pure functions of it.
 */
export interface Model {
  /** Display path of the config it came from, quoted in generated headers. */
  source: string;
  host: HostModel;
  /** Sorted by name. */
  templates: TemplateModel[];
}

export interface HostModel {
  user: string;
  authorizedKeys: string[];
  /** Secret name → host file path. Never the secret's contents. */
  secrets: Record<string, string>;
  stateDir: string;
  externalInterface: string | null;
  containerUsername: string;
  workspacePath: string;
  agentIdentity: Identity;
  monitor: { enable: boolean; interval: number; autoRestart: boolean };
  proxy: {
    /** Whether the API proxy runs: exactly when an agent goes by it (auth other than "wrapper"). */
    enable: boolean;
    port: number;
    url: string | null;
    rateLimit: { requests: number; window: string; tokens: number | null };
    /** null: `proxy-audit.jsonl` in the state directory in use (FORAGE_STATE_DIR may move it). */
    auditLog: string | null;
    auditLogMaxBytes: number;
    caFile: string | null;
    /** https origins allowed although they are on loopback, link-local or private addresses. */
    allowUpstreams: string[];
  };
  network: { base: string; upstreamResolver: string | null; admitPrivate: string[] };
  /** The approvals queue: seconds a request waits; the command told of each new one (argv), or null. */
  approvals: { deadline: number; notify: string[] | null };
  stateVersion: string;
  /** Where secrets appear inside every sandbox. */
  secretsMountPath: string;
}

export type NetworkMode = "none" | "restricted" | "full";

export interface AllowRule {
  /** As written, e.g. "*.github.com:443". */
  entry: string;
  /** The name without `*.` and port, e.g. "github.com". */
  host: string;
  /** True for `*.suffix`: every name below `host`, not `host` itself. */
  wildcard: boolean;
  port: number | null;
}

export interface AgentModel {
  name: string;
  /** Attribute path in nixpkgs, e.g. ["python3Packages", "black"]. */
  package: string[];
  executable: string | null;
  secret: { name: string; hostPath: string; containerPath: string; envVar: string } | null;
  hostConfigDir: string | null;
  containerConfigDir: string | null;
  hostConfigDirReadOnly: boolean;
  /** skipAll is already expanded into the full allow list. */
  permissions: { allow: string[]; deny: string[] } | null;
  /** A subscription login kept on the host (forage-ctl auth set), or null. */
  login: LoginModel | null;
  /** "wrapper" also for agents without a secret or login (they have nothing to give). */
  auth: AuthMode;
  /** How the API proxy serves this agent; null with auth "wrapper". */
  api: AgentApiModel | null;
}

/** An agent's subscription login: which program's, which kind, where an oauth login is refreshed. */
export interface LoginModel {
  flavor: LoginFlavor;
  kind: LoginKind;
  /** https URL of the token endpoint (used for oauth only). */
  tokenUrl: string;
}

/** An agent's API as the proxy sees it: where to send, how to authenticate, what the agent is told. */
export interface AgentApiModel {
  provider: ProviderName;
  /** https URL; its path (if any) is prefixed to every request path. */
  upstream: string;
  /** Lower-case header carrying the key, and its value with `{key}` for the key. */
  header: string;
  value: string;
  /** Variable → path appended to the agent's proxy URL, e.g. { OPENAI_BASE_URL: "/v1" }; sorted. */
  baseUrlEnv: Record<string, string>;
  /** placeholder: hosts the key is substituted for (allowlist syntax). */
  hosts: string[];
}

/** What a template's sandboxes may ask of their APIs through the proxy. */
export interface ProxyFilterModel {
  methods: ProxyMethod[];
  pathPrefixes: string[];
  maxRequestBytes: number;
}

export interface MountModel {
  name: string;
  containerPath: string;
  hostPath: string | null;
  repo: string | null;
  mode: "jj" | "git-worktree" | "direct" | null;
  branch: string | null;
  readOnly: boolean;
}

export interface TemplateModel {
  name: string;
  description: string;
  /** Sorted by name. */
  agents: AgentModel[];
  /** Attribute paths, de-duplicated, in first-seen order. */
  extraPackages: string[][];
  network: { mode: NetworkMode; allow: AllowRule[]; sni: boolean; ask: boolean };
  readOnlyWorkspace: boolean;
  /** null: unlimited (the template said "infinity"); memoryMax and tasksMax have defaults. */
  resourceLimits: { cpuQuota: string | null; memoryMax: string | null; tasksMax: number | null };
  initCommands: string[];
  agentIdentity: Identity;
  /** Sorted by name; includes the beads mount when useBeads is enabled. */
  mounts: MountModel[];
  /** Protected workspace paths this template lets the agent write (workspace.unprotected). */
  unprotectedPaths: ProtectedPath[];
  /** workspace.maxSize: the disk limit of each workspace forage-ctl creates ("10G"), or null. */
  workspaceMaxSize: string | null;
  /** The agent session's multiplexer: tmux, the only one (the schema refuses the reference's "wezterm"). */
  multiplexer: "tmux";
  tmuxWindows: { name: string; command: string }[];
  useProxy: boolean;
  /** The host-side SSH agent served into the sandbox (keys as written: paths may start with "~/"), or null. */
  sshAgent: { keys: string[]; confirm: boolean } | null;
  /** The push gate (template pushGate, enabled), or null; protectedBranches null: the upstream's default branch, main and master. */
  pushGate: { protectedBranches: string[] | null } | null;
  proxyFilter: ProxyFilterModel;
  ssh: boolean;
  /** The runtime the template's sandboxes get, or null: the host's choice (nspawn-nix where it has the template's system, else nspawn). */
  runtime: SandboxRuntime | null;
  /** The gvisor runtime's platform ("auto": what the host runs). */
  gvisor: { platform: GvisorPlatform };
  /** Seccomp groups and syscalls allowed back, sorted (runtime/seccomp/ denies the rest). */
  seccomp: { allow: string[] };
  /** What agents are told about the sandbox (rendered at start from templates/context/). */
  context: ContextModel;
}

export interface ContextModel {
  enable: boolean;
  fragments: string[];
  /** The user's own skills, sorted by name. */
  skills: { name: string; description: string; body: string }[];
}
