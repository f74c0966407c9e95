import { z } from "zod";
import { absolutePath, hostPath, packageRef, templateNameSource, vcsName } from "./names.js";

/** One composable workspace mount: a host directory, or a repository checked out per sandbox. */
export const mountSchema = z
  .strictObject({
    containerPath: absolutePath.describe('Where the mount appears in the sandbox, e.g. "/workspace/docs".'),
    hostPath: hostPath.optional().describe("A host directory bound as is (direct mode)."),
    repo: z
      .string()
      .regex(new RegExp(`^(${templateNameSource}|\\/.*)$`), { error: "must be a --repo name (a-z, 0-9, '-') or an absolute path" })
      .optional()
      .describe("Repository: a name given as `--repo NAME=PATH`, or an absolute path. Default: the `--repo` repository."),
    mode: z.enum(["jj", "git-worktree", "direct"]).optional().describe("How the repository is mounted; default: jj if it has .jj, else git-worktree."),
    branch: vcsName.optional().describe("Branch or bookmark checked out in this mount."),
    readOnly: z.boolean().default(false).describe("Mount read-only."),
  })
  .refine((m) => !(m.hostPath !== undefined && m.repo !== undefined), {
    error: "a mount has either hostPath or repo, not both",
  })
  .refine((m) => !(m.hostPath !== undefined && m.mode !== undefined && m.mode !== "direct"), {
    error: "hostPath mounts are always direct: remove mode or use repo",
  })
  .refine((m) => !(m.branch !== undefined && (m.hostPath !== undefined || m.mode === "direct")), {
    error: "branch applies to a jj or git-worktree checkout: a hostPath or direct mount is bound as it is; remove branch",
  });

/** Sugar for a jj mount of a beads (issue tracker) branch. */
export const beadsSchema = z
  .strictObject({
    enable: z.boolean().default(false).describe("Mount the beads branch."),
    branch: vcsName.default("beads-sync").describe("Branch holding the beads database."),
    package: packageRef.default("beads").describe("Package providing the `bd` command."),
    containerPath: absolutePath.default("/workspace/.beads").describe("Where the beads workspace appears."),
    repo: z.string().optional().describe("Repository holding the branch; default: the `--repo` repository."),
  })
  .describe("Beads issue-tracker workspace.");

export type Mount = z.output<typeof mountSchema>;
export type Beads = z.output<typeof beadsSchema>;
