import { z } from "zod";
import { absolutePath, hostPath, packageRef, templateNameSource, vcsName } from "./names.js";

/** One composable workspace mount: a host directory, or a repository checked out per sandbox. */
export const mountSchema = z
  .strictObject({
    containerPath: absolutePath.describe('Where the mount appears in the sandbox, e.g. "/workspace/docs".'),
    hostPath: hostPath.optional().describe("A host directory bound as is (direct mode)."),
    repo: z
      .string()
      .regex(new RegExp(`^(${templateNameSource}|\\/.*)$`), {
        error: "must be a --repo name (a-z, 0-9, '-') or an absolute path",
      })
      .optional()
      .describe(
        "Repository: a name given as `--repo NAME=PATH`, or an absolute path. Default: the `--repo` repository.",
      ),
    mode: z
      .enum(["jj", "git-worktree", "direct"])
      .optional()
      .describe("How the repository is mounted; default: jj if it has .jj, else git-worktree."),
    branch: vcsName.optional().describe("Branch or bookmark checked out in this mount."),
    readOnly: z
      .boolean()
      .optional()
      .describe(
        "Mount read-only. Default: false (but the template's readOnlyWorkspace makes every mount read-only, and readOnly: false beside it is refused).",
      ),
  })
  .refine((m) => !(m.hostPath !== undefined && m.repo !== undefined), {
    error: "a mount has either hostPath or repo, not both",
  })
  .refine((m) => !(m.hostPath !== undefined && m.mode !== undefined && m.mode !== "direct"), {
    error: "hostPath mounts are always direct: remove mode or use repo",
  })
  .refine((m) => !(m.branch !== undefined && (m.hostPath !== undefined || m.mode === "direct")), {
    error:
      "branch applies to a jj or git-worktree checkout: a hostPath or direct mount is bound as it is; remove branch",
  });

/** What useBeads mounts when it is enabled and leaves a field out (applied in the model). */
export const beadsDefaults = { branch: "beads-sync", package: "beads", containerPath: "/workspace/.beads" } as const;

/*
 * No zod defaults but enable's: a field written beside enable off is refused (below), so whether
 * it was written must show. The model and the mount checks apply beadsDefaults.
 */
const beadsFields = ["branch", "package", "containerPath", "repo"] as const;

/** Sugar for a jj mount of a beads (issue tracker) branch. */
export const beadsSchema = z
  .strictObject({
    enable: z.boolean().default(false).describe("Mount the beads branch."),
    branch: vcsName.optional().describe(`Branch holding the beads database. Default: "${beadsDefaults.branch}".`),
    package: packageRef
      .optional()
      .describe(`Package providing the \`bd\` command. Default: "${beadsDefaults.package}".`),
    containerPath: absolutePath
      .optional()
      .describe(`Where the beads workspace appears. Default: "${beadsDefaults.containerPath}".`),
    repo: z.string().optional().describe("Repository holding the branch; default: the `--repo` repository."),
  })
  // Only an enabled useBeads mounts anything: its fields beside enable off would be read by nothing.
  .superRefine((beads, context) => {
    if (beads.enable) return;
    for (const field of beadsFields.filter((each) => beads[each] !== undefined)) {
      context.addIssue({
        code: "custom",
        path: [field],
        params: { atKey: true },
        message: `useBeads.${field} says how the beads branch is mounted, and useBeads.enable is off: set useBeads.enable: true, or remove ${field}`,
      });
    }
  })
  .describe("Beads issue-tracker workspace; its fields other than enable need enable: true.");

export type Mount = z.output<typeof mountSchema>;
export type Beads = z.output<typeof beadsSchema>;
