# systemd-tmpfiles rules for the host: the state directory and the per-sandbox secrets root.
# Secrets live on tmpfs under /run, readable by root only; each sandbox's own directory is created
# 0700 at `up` and its files are owned by the agent's uid.
{ lib }:
cfg: [
  # Traversable, not listable: the user reaches their sandboxes' jj workspaces and git worktrees
  # under workspaces/ (each owned by them); metadata stays root's.
  "d ${cfg.stateDir} 0711 root root - -"
  "d ${cfg.stateDir}/sandboxes 0750 root root - -"
  "d ${cfg.stateDir}/workspaces 0711 root root - -"
  "d /run/forage-secrets 0700 root root - -"
]
