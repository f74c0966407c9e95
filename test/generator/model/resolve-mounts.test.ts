import { describe, expect, it } from "vitest";
import { template } from "./resolve-helpers.js";

describe("workspace mounts", () => {
  it("adds a `beads` jj mount with the defaults when useBeads is enabled", () => {
    const t = template({ t: { workspace: { useBeads: { enable: true } } } }, "t");
    expect(t.mounts).toEqual([
      {
        name: "beads",
        containerPath: "/workspace/.beads",
        hostPath: null,
        repo: null,
        mode: "jj",
        branch: "beads-sync",
        readOnly: false,
      },
    ]);
  });

  it("adds the beads package to extraPackages when useBeads is enabled", () => {
    const t = template(
      { t: { extraPackages: ["ripgrep"], workspace: { useBeads: { enable: true, package: "beads-unstable" } } } },
      "t",
    );
    expect(t.extraPackages).toEqual([["ripgrep"], ["beads-unstable"]]);
  });

  it("does not add the beads package twice when it is already an extra package", () => {
    const t = template({ t: { extraPackages: ["beads"], workspace: { useBeads: { enable: true } } } }, "t");
    expect(t.extraPackages).toEqual([["beads"]]);
  });

  it("adds neither mount nor package when useBeads is present but disabled", () => {
    const t = template({ t: { workspace: { useBeads: { enable: false } } } }, "t");
    expect(t.mounts).toEqual([]);
    expect(t.extraPackages).toEqual([]);
  });

  it("makes every mount read-only, the beads mount included, when readOnlyWorkspace is set", () => {
    const t = template(
      {
        t: {
          readOnlyWorkspace: true,
          workspace: {
            mounts: {
              app: { containerPath: "/workspace/app", mode: "jj" },
              data: { containerPath: "/data", hostPath: "/srv/data", readOnly: false },
            },
            useBeads: { enable: true },
          },
        },
      },
      "t",
    );
    expect(t.mounts.map((m) => [m.name, m.readOnly])).toEqual([
      ["app", true],
      ["beads", true],
      ["data", true],
    ]);
  });

  it("treats a hostPath mount as direct and sorts mounts by name", () => {
    const t = template(
      {
        t: {
          workspace: {
            mounts: {
              zeta: { containerPath: "/z", hostPath: "/srv/z" },
              alpha: { containerPath: "/a", repo: "docs", mode: "git-worktree" },
            },
          },
        },
      },
      "t",
    );
    expect(t.mounts.map((m) => [m.name, m.mode])).toEqual([
      ["alpha", "git-worktree"],
      ["zeta", "direct"],
    ]);
  });

  it("merges mounts by name across extends", () => {
    const t = template(
      {
        parent: {
          workspace: {
            mounts: { app: { containerPath: "/workspace/app" }, docs: { containerPath: "/workspace/docs" } },
          },
        },
        child: { extends: "parent", workspace: { mounts: { docs: { containerPath: "/workspace/manual" } } } },
      },
      "child",
    );
    expect(t.mounts.map((m) => [m.name, m.containerPath])).toEqual([
      ["app", "/workspace/app"],
      ["docs", "/workspace/manual"],
    ]);
  });
});
