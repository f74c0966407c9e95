/**
 * Workspace paths that can make the host run what the agent wrote (git hooks and config, direnv,
 * editor tasks) or change how Forage starts the sandbox. Sandboxes see them read-only unless a
 * template lists them in `workspace.unprotected`.
 */
export const protectedPaths = [".git/hooks", ".git/config", ".jj/repo/config.toml", ".envrc", ".vscode", ".forage"] as const;

export type ProtectedPath = (typeof protectedPaths)[number];
