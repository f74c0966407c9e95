import type { SandboxView } from "../../runtime/api/sandbox-view.js";

/** What the picker shows of a sandbox. */
export type PickerSandbox = Pick<
  SandboxView,
  "name" | "template" | "status" | "workspaceMode" | "workspace" | "sourceRepo"
>;

/** The sandboxes of one repository (or one directory mounted as is), by name. */
export interface SandboxGroup {
  repo: string;
  sandboxes: PickerSandbox[];
}

/**
 * The repository a sandbox works on: the one its jj workspace or git worktree was made from, else
 * the directory mounted as is. Sandboxes of one repository are listed together.
 */
export function repositoryOf(sandbox: PickerSandbox): string {
  return sandbox.sourceRepo ?? sandbox.workspace;
}

/**
 * The sandboxes whose name, template or repository contains `filter` (any case), grouped by
 * repository; groups and sandboxes in name order, so the list does not move between refreshes.
 *
 * @example groupByRepository([{ name: "fix-1", sourceRepo: "/src/app", … }], "fix")
 * // → [{ repo: "/src/app", sandboxes: [{ name: "fix-1", … }] }]
 */
export function groupByRepository(sandboxes: readonly PickerSandbox[], filter: string): SandboxGroup[] {
  const needle = filter.toLowerCase();
  const groups = new Map<string, PickerSandbox[]>();
  for (const sandbox of sandboxes) {
    const repo = repositoryOf(sandbox);
    if (![sandbox.name, sandbox.template, repo].some((text) => text.toLowerCase().includes(needle))) continue;
    groups.set(repo, [...(groups.get(repo) ?? []), sandbox]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([repo, members]) => ({ repo, sandboxes: members.sort((a, b) => a.name.localeCompare(b.name)) }));
}

/** The sandboxes of the groups in the order they are shown: what the selection moves over. */
export function listedNames(groups: readonly SandboxGroup[]): string[] {
  return groups.flatMap((group) => group.sandboxes.map((sandbox) => sandbox.name));
}
