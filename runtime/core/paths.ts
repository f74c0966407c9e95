import { pathUnder } from "./names.js";

/** Where a host keeps sandbox state and runtime files (ARCHITECTURE.md, "Contracts kept stable": paths). */
export interface RuntimePaths {
  stateDir: string;
  /** `<state>/sandboxes/<name>.json` metadata, `<name>.events.jsonl` audit log. */
  sandboxesDir: string;
  /** `<state>/logins/<user>/<agent>.json`: subscription logins kept on the host (root's, 0600). */
  loginsDir: string;
  /** `<state>/workspaces/<name>` for managed workspaces. */
  workspacesDir: string;
  /** Per-sandbox ephemeral roots (tmpfs mounts), under /run so a reboot clears them. */
  rootsDir: string;
  /**
   * Per-sandbox network records (`<dir>/<name>/denials.jsonl`), written by the sandbox's network
   * guard and mounted read-only at /run/forage/network so the agent can see what was refused.
   */
  networkDir: string;
  /** Per-sandbox rendered agent context (`<dir>/<name>/`), bound read-only at /run/forage/context. */
  contextDir: string;
  /** Per-sandbox SSH agent sockets (`<dir>/<name>/agent.sock`, dirs root's): bound read-only at /run/forage/ssh-agent. */
  sshAgentDir: string;
  /** The gvisor runtime's: runsc's state (`<dir>/state`) and each sandbox's OCI bundle (`<dir>/bundles/<name>`). */
  gvisorDir: string;
  /** Per-sandbox seccomp programs (`<dir>/<name>.bpf`), bound read-only into the sandbox. */
  seccompDir: string;
  /**
   * Per-sandbox push gates (`<dir>/<name>/`: the outbox repository, its hook, the gate's socket):
   * in the state directory, as pushed objects can be large.
   */
  pushGateDir: string;
  /** Per-sandbox secret copies (dir 0700, files 0400), mounted read-only at /run/secrets. */
  secretsDir: string;
  /** The API proxy's status (`<run>/proxy.json`), written by whichever process runs it. */
  proxyStatusFile: string;
  /** Per-sandbox lock files (`<run>/locks/<name>`): one lifecycle change of a sandbox at a time. */
  locksDir: string;
  /** The network guard host's socket (`<run>/guard.sock`, root's alone): every sandbox's guard runs there. */
  guardSocket: string;
  /** Prebuilt NixOS systems per template (`<dir>/<template>`, installed by the NixOS module). */
  systemsDir: string;
  /** `forage-ctl generate`'s output as the NixOS module publishes it (extra-container reads it). */
  generatedDir: string;
  /** Forage's NixOS modules as the NixOS module publishes them (extra-container reads them). */
  modulesDir: string;
}

/** Paths for a state directory; FORAGE_STATE_DIR overrides the configured one. */
export function runtimePaths(configuredStateDir: string, env: NodeJS.ProcessEnv = process.env): RuntimePaths {
  const stateDir = env.FORAGE_STATE_DIR ?? configuredStateDir;
  const runDir = env.FORAGE_RUN_DIR ?? "/run/forage";
  return {
    stateDir,
    sandboxesDir: `${stateDir}/sandboxes`,
    loginsDir: `${stateDir}/logins`,
    workspacesDir: `${stateDir}/workspaces`,
    rootsDir: `${runDir}/roots`,
    networkDir: `${runDir}/network`,
    seccompDir: `${runDir}/seccomp`,
    gvisorDir: `${runDir}/gvisor`,
    sshAgentDir: `${runDir}/ssh-agent`,
    contextDir: `${runDir}/context`,
    pushGateDir: `${stateDir}/push-gate`,
    secretsDir: env.FORAGE_SECRETS_DIR ?? "/run/forage-secrets",
    proxyStatusFile: `${runDir}/proxy.json`,
    locksDir: `${runDir}/locks`,
    guardSocket: `${runDir}/guard.sock`,
    systemsDir: systemsDir(env),
    generatedDir: env.FORAGE_GENERATED_DIR ?? "/etc/forage/generated",
    modulesDir: env.FORAGE_MODULES_DIR ?? "/etc/forage/modules",
  };
}

/** The environment variables runtimePaths reads besides FORAGE_RUN_DIR (which names the daemon's socket). */
const pathOverrides = [
  "FORAGE_STATE_DIR",
  "FORAGE_SECRETS_DIR",
  "FORAGE_SYSTEMS_DIR",
  "FORAGE_GENERATED_DIR",
  "FORAGE_MODULES_DIR",
] as const;

/**
 * The path overrides `env` sets, each null where unset: two processes with equal ones and the
 * same settings find the same state, secrets and systems (the daemon says its own in `hello`).
 */
export function pathOverridesOf(env: NodeJS.ProcessEnv = process.env): Record<string, string | null> {
  return Object.fromEntries(pathOverrides.map((name) => [name, env[name] ?? null]));
}

/** Where the NixOS module installs the templates' prebuilt systems; FORAGE_SYSTEMS_DIR overrides. */
export function systemsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.FORAGE_SYSTEMS_DIR ?? "/etc/forage/systems";
}

export function metadataPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.sandboxesDir, `${name}.json`);
}

export function eventsPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.sandboxesDir, `${name}.events.jsonl`);
}

export function rootPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.rootsDir, name);
}

/** Where the API proxy's audit log goes: the configured path, else `<state>/proxy-audit.jsonl`. */
export function proxyAuditLogPath(paths: RuntimePaths, configured: string | null): string {
  return configured ?? `${paths.stateDir}/proxy-audit.jsonl`;
}

export function sandboxSecretsPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.secretsDir, name);
}

export function sandboxNetworkPath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.networkDir, name);
}
