import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkReferences } from "../../../generator/config/check-references.js";
import { loadConfig } from "../../../generator/config/load-config.js";
import { configErrorOf, tempConfigDir, where, type TempConfigDir } from "./temp-config.js";
import { parseConfig } from "./parse-config.js";

let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(async () => {
  await temp.cleanup();
});

describe("cross-references between parts of the config", () => {
  it("reports an agent's secretName that is not defined under secrets, at the secretName", async () => {
    await temp.write(
      "forage.yaml",
      [
        "user: alice",
        "secrets:",
        "  key: /run/secrets/key",
        "templates:",
        "  t:",
        "    agents:",
        "      a:",
        "        package: claude-code",
        "        secretName: nokey",
        "        authEnvVar: API_KEY",
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics).toHaveLength(1);
    expect(error.diagnostics[0]?.path).toEqual(["templates", "t", "agents", "a", "secretName"]);
    expect(where(error.diagnostics[0]!)).toBe("forage.yaml:9:21");
    expect(error.diagnostics[0]?.message).toMatch(/secret "nokey" is not defined/);
  });

  it("reports `extends` of a template that does not exist, naming the known templates", async () => {
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  base: {}", "  child:", "    extends: missing", ""].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics).toHaveLength(1);
    expect(error.diagnostics[0]?.path).toEqual(["templates", "child", "extends"]);
    expect(where(error.diagnostics[0]!)).toBe("forage.yaml:5:14");
    expect(error.diagnostics[0]?.message).toBe('template "missing" does not exist (known: base, child)');
  });

  it("reports a missing parent in an `extends` list at its index", async () => {
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  base: {}", "  child:", "    extends: [base, missing]", ""].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.path)).toEqual([["templates", "child", "extends", 1]]);
    expect(where(error.diagnostics[0]!)).toBe("forage.yaml:5:21");
  });

  it("reports an extends cycle a → b → a on every template in it", async () => {
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  a:", "    extends: b", "  b:", "    extends: [a]", ""].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      ["templates.a.extends", "inheritance cycle: a → b → a"],
      ["templates.b.extends", "inheritance cycle: b → a → b"],
    ]);
    expect(error.diagnostics.map((d) => d.line)).toEqual([4, 6]);
  });

  it("reports a template that extends itself", async () => {
    await temp.write("forage.yaml", ["user: alice", "templates:", "  a:", "    extends: a", ""].join("\n"));
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      ["templates.a.extends", "inheritance cycle: a → a"],
    ]);
  });

  it("reports every reference problem at once", async () => {
    await temp.write(
      "forage.json",
      JSON.stringify(
        {
          user: "alice",
          templates: {
            t: { agents: { a: { package: "claude-code", secretName: "nokey", authEnvVar: "K" } } },
            c: { extends: "missing" },
            x: { extends: "y" },
            y: { extends: "x" },
          },
        },
        null,
        2,
      ),
    );
    const error = await configErrorOf("forage.json", temp.dir);
    expect(error.diagnostics.map((d) => d.path.join(".")).sort()).toEqual([
      "templates.c.extends",
      "templates.t.agents.a.secretName",
      "templates.x.extends",
      "templates.y.extends",
    ]);
  });

  it("accepts a diamond (two parents sharing a grandparent) as no cycle", async () => {
    await temp.write(
      "forage.yaml",
      [
        "user: alice",
        "templates:",
        "  root: {}",
        "  left: { extends: root }",
        "  right: { extends: root }",
        "  both: { extends: [left, right] }",
        "",
      ].join("\n"),
    );
    const loaded = await loadConfig("forage.yaml", temp.dir);
    expect(loaded.config.templates.both?.extends).toEqual(["left", "right"]);
  });
});

describe("workspace mounts", () => {
  const base = {
    user: "alice",
    templates: {
      t: {
        workspace: {
          mounts: {
            a: { containerPath: "/workspace/docs", hostPath: "/srv/docs" },
            b: { containerPath: "/workspace/docs", hostPath: "/srv/other" },
            c: { containerPath: "/workspace", hostPath: "/srv/c" },
            beads: { containerPath: "/beads-mine", hostPath: "/srv/b" },
          },
          useBeads: { enable: true, containerPath: "/workspace/docs" },
        },
      },
    },
  };

  it("reports every mount path used twice, the workspace path, and a mount named like useBeads'", () => {
    const problems = checkReferences(parseConfig(base));
    expect(problems.map((p) => [p.path.join("."), p.message])).toEqual([
      [
        "templates.t.workspace.mounts.beads",
        'the mount name "beads" is taken by useBeads: rename this mount or disable useBeads',
      ],
      [
        "templates.t.workspace.mounts.b.containerPath",
        '"/workspace/docs" is already used by mount "a": choose another containerPath',
      ],
      [
        "templates.t.workspace.mounts.c.containerPath",
        '"/workspace" is already used by the workspace (workspacePath): choose another containerPath',
      ],
      [
        "templates.t.workspace.useBeads.containerPath",
        '"/workspace/docs" is already used by mount "a": choose another containerPath',
      ],
    ]);
  });
});
