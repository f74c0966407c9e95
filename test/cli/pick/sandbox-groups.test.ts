import { describe, expect, it } from "vitest";
import { groupByRepository, listedNames, type PickerSandbox } from "../../../cli/pick/sandbox-groups.js";

const sandbox = (name: string, sourceRepo: string | null, workspace = `/state/workspaces/${name}`): PickerSandbox => ({
  name,
  template: name.startsWith("doc") ? "writer" : "coder",
  status: "running",
  workspaceMode: sourceRepo === null ? "direct" : "git-worktree",
  workspace,
  sourceRepo,
});

const sandboxes = [sandbox("fix-2", "/src/app"), sandbox("docs", null, "/src/site"), sandbox("fix-1", "/src/app")];

describe("grouping sandboxes by repository", () => {
  it("puts a repository's workspaces together, and a directory mounted as is under itself, in name order", () => {
    const groups = groupByRepository(sandboxes, "");
    expect(groups.map((g) => [g.repo, g.sandboxes.map((s) => s.name)])).toEqual([
      ["/src/app", ["fix-1", "fix-2"]],
      ["/src/site", ["docs"]],
    ]);
    expect(listedNames(groups)).toEqual(["fix-1", "fix-2", "docs"]);
  });

  it("filters by name, template or repository, in any case", () => {
    expect(listedNames(groupByRepository(sandboxes, "FIX-1"))).toEqual(["fix-1"]);
    expect(listedNames(groupByRepository(sandboxes, "writer"))).toEqual(["docs"]);
    expect(listedNames(groupByRepository(sandboxes, "src/app"))).toEqual(["fix-1", "fix-2"]);
    expect(groupByRepository(sandboxes, "nothing")).toEqual([]);
  });
});
