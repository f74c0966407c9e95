import { n, type NixExpr } from "../emit/nix/index.js";
import type { Identity } from "../config/schema/identity.js";
import { deniedSyscalls } from "../config/schema/seccomp.js";
import { settingNames } from "../config/schema/defaulted-settings.js";
import { templateSettings } from "../config/schema/template-settings.js";
import { agentPromptFiles } from "../model/agent-prompt-files.js";
import type { AgentModel, MountModel, TemplateModel } from "../model/model.js";

/** `pkgs.python3Packages.black`: a real reference into the host's package set, never a pname. */
export function packageExpr(attributePath: string[]): NixExpr {
  return n.sel(n.v("pkgs"), ...attributePath);
}

/**
 * A template's option values, in the shape of `modules/options/template.nix`, with every default
 * already applied so the file says exactly what the sandbox gets.
 */
export function templateValues(template: TemplateModel, nftFile: string | null): NixExpr {
  return n.attrs({
    // The settings with a default (config/schema/template-settings.ts) are the option values as resolved.
    ...Object.fromEntries(settingNames(templateSettings).map((name) => [name, n.fromValue(template[name])])),
    agents: n.attrs(Object.fromEntries(template.agents.map((agent) => [agent.name, agentValues(agent)]))),
    extraPackages: n.list(template.extraPackages.map(packageExpr)),
    network: n.fromValue({
      mode: template.network.mode,
      allow: template.network.allow.map((rule) => rule.entry),
      sni: template.network.sni,
      ask: template.network.ask,
    }),
    resourceLimits: n.fromValue(template.resourceLimits),
    agentIdentity: identityValues(template.agentIdentity),
    workspace: n.attrs({
      mounts: n.attrs(Object.fromEntries(template.mounts.map((m) => [m.name, mountValues(m)]))),
      unprotected: n.fromValue(template.unprotectedPaths),
      maxSize: n.fromValue(template.workspaceMaxSize),
    }),
    tmuxWindows: n.fromValue(template.tmuxWindows),
    // Recorded for the module's view of the template; the host-side agent reads forage.json.
    sshAgent: n.fromValue(template.sshAgent),
    // Likewise: the daemon's MCP gate reads forage.json.
    mcp: n.fromValue({
      servers: Object.fromEntries(template.mcp.servers.map(({ name, ...server }) => [name, server])),
    }),
    // Likewise: the daemon's push gate reads forage.json.
    pushGate: n.fromValue(template.pushGate),
    seccomp: n.fromValue(template.seccomp),
    seccompDenied: n.fromValue(deniedSyscalls(template.seccomp.allow)),
    // Claude Code's wrappers pass the sandbox's rendered prompt with --append-system-prompt.
    agentPromptFiles: n.fromValue(agentPromptFiles(template)),
    nftablesRuleset: nftFile === null ? n.nul : n.path(`./${nftFile}`),
  });
}

/** An identity with every field present (null when unset), as the identity submodule expects. */
export function identityValues(identity: Identity): NixExpr {
  return n.fromValue({
    gitUser: identity.gitUser ?? null,
    gitEmail: identity.gitEmail ?? null,
    sshKeyPath: identity.sshKeyPath ?? null,
  });
}

function agentValues(agent: AgentModel): NixExpr {
  return n.attrs({
    package: packageExpr(agent.package),
    executable: agent.executable === null ? n.nul : n.str(agent.executable),
    // Only the secret's name: the wrapper reads the file at run time inside the sandbox.
    secretName: agent.secret === null ? n.nul : n.str(agent.secret.name),
    authEnvVar: agent.secret === null ? n.nul : n.str(agent.secret.envVar),
    // proxy/placeholder: the wrapper also exports the proxy's base URLs, written per sandbox at up.
    auth: n.str(agent.auth),
    // A login's token (wrapper) or stand-in and the proxy's URL (proxy) come in the same per-sandbox env file.
    login: agent.login === null ? n.nul : n.str(agent.login.kind),
    hostConfigDir: n.fromValue(agent.hostConfigDir),
    containerConfigDir: n.fromValue(agent.containerConfigDir),
    hostConfigDirReadOnly: n.bool(agent.hostConfigDirReadOnly),
    permissions: agent.permissions === null ? n.nul : n.fromValue({ skipAll: false, ...agent.permissions }),
  });
}

function mountValues(mount: MountModel): NixExpr {
  return n.fromValue({
    containerPath: mount.containerPath,
    hostPath: mount.hostPath,
    repo: mount.repo,
    mode: mount.mode,
    branch: mount.branch,
    readOnly: mount.readOnly,
  });
}
