import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { completeDirectory, expandPath, isDirectory } from "../../../cli/pick/path-completion.js";
import {
  defaultName,
  isRepository,
  nameProblem,
  upRequestOf,
  type WizardAnswers,
} from "../../../cli/pick/wizard-answers.js";
import {
  initialWizardState,
  retryWizardState,
  wizardKey,
  type WizardEffect,
  type WizardEnvironment,
  type WizardState,
} from "../../../cli/pick/wizard-state.js";
import { typed, type KeyPress } from "../../../cli/pick/key-press.js";

// A real directory tree: completion reads the file system as it is.
const root = mkdtempSync(join(tmpdir(), "forage-wizard-"));
for (const dir of ["src/app", "src/api", "src/site", "src/.hidden", "My_Project"])
  mkdirSync(join(root, dir), { recursive: true });
writeFileSync(join(root, "src/apple.txt"), "");
mkdirSync(join(root, "src/app/.git"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const environment: WizardEnvironment = {
  templates: ["claude", "writer"],
  taken: new Set(["app"]),
  expand: (text) => expandPath(text, root, "/home/someone"),
  isDirectory,
  isRepository,
  complete: (text) => completeDirectory(text, root, "/home/someone"),
};
const enter: KeyPress = { input: "\r", key: { return: true } };
const text = (value: string): KeyPress[] => [{ input: "u", key: { ctrl: true } }, ...[...value].map(typed)];
const run = (
  keys: KeyPress[],
  state = initialWizardState(root, environment),
): { state: WizardState; effect?: WizardEffect } =>
  keys.reduce<{ state: WizardState; effect?: WizardEffect }>(
    (at, key) => (at.effect === undefined ? wizardKey(at.state, key, environment) : at),
    { state },
  );

describe("directory completion", () => {
  it("completes one matching directory with a slash, several to their common start, never a file", () => {
    expect(completeDirectory("src/si", root).value).toBe("src/site/");
    expect(completeDirectory("src/a", root)).toEqual({ value: "src/ap", candidates: ["api", "app"] });
    expect(completeDirectory("src/apple", root)).toEqual({ value: "src/apple", candidates: [] });
  });

  it("offers hidden directories only for a part that starts with a dot, and keeps ~ as typed", () => {
    expect(completeDirectory("src/", root).candidates).toEqual(["api", "app", "site"]);
    expect(completeDirectory("src/.h", root).value).toBe("src/.hidden/");
    expect(expandPath("~/src", root, "/home/someone")).toBe("/home/someone/src");
  });
});

describe("the sandbox name", () => {
  it("is made from the directory's name", () => {
    expect(defaultName("/x/My_Project")).toBe("my-project");
    expect(defaultName("/x/--a.b--")).toBe("a-b");
  });

  it("must follow the sandbox-name rule and be free", () => {
    expect(nameProblem("Bad_Name", new Set())).toContain('invalid sandbox name "Bad_Name"');
    expect(nameProblem("app", new Set(["app"]))).toBe("a sandbox named app exists already: choose another name");
    expect(nameProblem("app-2", new Set(["app"]))).toBeNull();
  });
});

describe("the wizard's steps", () => {
  it("goes from a directory to the template, pre-filling the name from the directory", () => {
    const { state } = run([...text("My_Project"), enter]);
    expect(state.step).toBe("template");
    expect(state.answers.name).toBe("my-project");
  });

  it("stays on a path that is not a directory and says so", () => {
    const { state } = run([...text("src/apple.txt"), enter]);
    expect(state.step).toBe("directory");
    expect(state.note).toBe(`${join(root, "src/apple.txt")} is not a directory`);
  });

  it("completes the path with Tab and lists the candidates when there are several", () => {
    const { state } = run([...text("src/a"), { input: "\t", key: { tab: true } }]);
    expect(state.answers.directory).toBe("src/ap");
    expect(state.note).toBe("api  app");
  });

  it("does not go past a taken or invalid name", () => {
    const atName = run([...text("src/app"), enter, enter]).state;
    expect(atName).toMatchObject({ step: "name", answers: { name: "app" } });
    expect(run([enter], atName).state.step).toBe("name");
    expect(run([...text("Bad_Name"), enter], atName).state.step).toBe("name");
    expect(run([...text("app-2"), enter], atName).state.step).toBe("advanced");
  });

  it("goes back a step on Esc and leaves from the first step", () => {
    const escape: KeyPress = { input: "", key: { escape: true } };
    expect(run([enter, escape]).state.step).toBe("directory");
    expect(run([escape]).effect).toEqual({ kind: "cancel" });
  });

  it("ends with the answers for up, the directory made absolute", () => {
    const down: KeyPress = { input: "", key: { downArrow: true } };
    const keys = [
      ...text("src/app"),
      enter,
      typed("j"),
      enter,
      ...text("app-2"),
      enter,
      typed(" "),
      down,
      typed(" "),
      down,
      ...[..."Ann"].map(typed),
      enter,
      enter,
    ];
    expect(run(keys).effect).toEqual({
      kind: "create",
      answers: {
        directory: join(root, "src/app"),
        template: "writer",
        name: "app-2",
        direct: true,
        muxConfig: false,
        gitUser: "Ann",
        gitEmail: "",
        sshKeyPath: "",
      },
    });
  });

  it("comes back after a failed up on the summary with the same answers, and goes back from there", () => {
    const answers: WizardAnswers = {
      directory: join(root, "src/site"),
      template: "writer",
      name: "site-2",
      direct: false,
      muxConfig: true,
      gitUser: "",
      gitEmail: "",
      sshKeyPath: "",
    };
    const again = retryWizardState(answers, environment, "up failed: no free slot");
    expect(again).toMatchObject({ step: "confirm", templateIndex: 1, note: "up failed: no free slot" });
    const escape: KeyPress = { input: "", key: { escape: true } };
    // Back to the template step: the chosen template is still selected, the name kept.
    const back = run([escape, escape, escape], again).state;
    expect([back.step, back.templateIndex, back.answers.name, back.note]).toEqual(["template", 1, "site-2", null]);
    expect(run([enter], again).effect).toEqual({ kind: "create", answers });
  });
});

describe("the up request the answers make", () => {
  const answers: WizardAnswers = {
    directory: "/src/app",
    template: "claude",
    name: "app",
    direct: false,
    muxConfig: true,
    gitUser: "",
    gitEmail: "",
    sshKeyPath: "",
  };

  it("gives a repository as -r (its own workspace), --direct when asked, and any other directory as -w", () => {
    expect(upRequestOf(answers, true)).toEqual({ name: "app", template: "claude", repo: "/src/app" });
    expect(upRequestOf({ ...answers, direct: true }, true)).toEqual({
      name: "app",
      template: "claude",
      repo: "/src/app",
      direct: true,
    });
    expect(upRequestOf(answers, false)).toEqual({ name: "app", template: "claude", workspace: "/src/app" });
  });

  it("adds the advanced choices only when they differ from up's defaults", () => {
    expect(
      upRequestOf(
        { ...answers, muxConfig: false, gitUser: " Ann ", gitEmail: "ann@example.com", sshKeyPath: "/k" },
        false,
      ),
    ).toEqual({
      name: "app",
      template: "claude",
      workspace: "/src/app",
      muxConfig: false,
      gitUser: "Ann",
      gitEmail: "ann@example.com",
      sshKeyPath: "/k",
    });
  });
});
