/** Exit codes shared by every command (ARCHITECTURE.md, "Contracts kept stable"). */
export const ExitCode = {
  ok: 0,
  general: 1,
  sandboxNotFound: 2,
  templateNotFound: 3,
  noFreeSlot: 4,
  containerFailed: 5,
  config: 6,
  vcs: 7,
  attach: 8,
  usage: 64,
  internal: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
