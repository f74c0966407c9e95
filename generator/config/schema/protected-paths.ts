/**
 * Workspace paths that can make the host run what the agent wrote (git hooks and config, direnv,
 * editor tasks, a Forage config that `forage-ctl` run in that directory would load — as root, for
 * sandbox commands) or change how Forage starts the sandbox. Sandboxes see them read-only unless
 * a template lists them in `workspace.unprotected`. The config names are find-config.ts's.
 */
export const protectedPaths = [
  ".git/hooks",
  ".git/config",
  ".jj/repo/config.toml",
  ".envrc",
  ".vscode",
  ".forage",
  "forage.config.ts",
  "forage.yaml",
  "forage.json",
] as const;

export type ProtectedPath = (typeof protectedPaths)[number];
