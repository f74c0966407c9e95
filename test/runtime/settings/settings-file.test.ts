import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../generator/config/diagnostic.js";
import { loadSettings, SettingsError } from "../../../runtime/settings/load-settings.js";
import { defaultSettingsFile, settingsFile } from "../../../runtime/settings/settings-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "forage-settings-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (name: string, user = "nobody"): string => {
  writeFileSync(
    join(dir, name),
    `user: ${user}\ntemplates:\n  shell:\n    agents:\n      helper: { package: bashInteractive, executable: bash }\n`,
  );
  return join(dir, name);
};

describe("settingsFile: which settings sandbox commands and the daemon run from", () => {
  it("--config comes first, made absolute against the current directory and shown as given", async () => {
    config("forage.yaml");
    expect(await settingsFile("other.yaml", { FORAGE_CONFIG: "/env.yaml" }, dir)).toEqual({
      path: join(dir, "other.yaml"),
      shown: "other.yaml",
      origin: "--config",
      searched: dir,
    });
  });

  it("FORAGE_CONFIG comes before a config in the current directory", async () => {
    config("forage.yaml");
    expect(await settingsFile(undefined, { FORAGE_CONFIG: "sub/x.json" }, dir)).toMatchObject({
      path: join(dir, "sub/x.json"),
      shown: "sub/x.json",
      origin: "FORAGE_CONFIG",
    });
  });

  it("an empty FORAGE_CONFIG counts as unset", async () => {
    config("forage.yaml");
    expect(await settingsFile(undefined, { FORAGE_CONFIG: "" }, dir)).toMatchObject({
      path: join(dir, "forage.yaml"),
      origin: "current directory",
    });
  });

  it("finds forage.config.ts, forage.yaml, forage.json in the current directory, in that order", async () => {
    config("forage.json");
    expect(await settingsFile(undefined, {}, dir)).toMatchObject({
      path: join(dir, "forage.json"),
      shown: "./forage.json",
    });
    config("forage.yaml");
    expect(await settingsFile(undefined, {}, dir)).toMatchObject({
      path: join(dir, "forage.yaml"),
      shown: "./forage.yaml",
    });
    writeFileSync(join(dir, "forage.config.ts"), "");
    expect(await settingsFile(undefined, {}, dir)).toEqual({
      path: join(dir, "forage.config.ts"),
      shown: "./forage.config.ts",
      origin: "current directory",
      searched: dir,
    });
  });

  it("falls back to /etc/forage/forage.json when nothing is named or found", async () => {
    expect(defaultSettingsFile).toBe("/etc/forage/forage.json");
    expect(await settingsFile(undefined, {}, dir)).toEqual({
      path: defaultSettingsFile,
      shown: defaultSettingsFile,
      origin: "default",
      searched: dir,
    });
  });
});

describe("loadSettings", () => {
  it("loads the config found in the current directory", async () => {
    config("forage.yaml", "alice");
    const { settings } = await loadSettings(await settingsFile(undefined, {}, dir));
    expect(settings.host.user).toBe("alice");
    expect(settings.templates.map((t) => t.name)).toEqual(["shell"]);
  });

  it("a missing default says where it looked and what to do, as a SettingsError", async () => {
    const file = {
      path: join(dir, "etc/forage.json"),
      shown: "/etc/forage/forage.json",
      origin: "default" as const,
      searched: dir,
    };
    const error = await loadSettings(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toBe(
      `no settings: no --config or FORAGE_CONFIG, none of forage.config.ts, forage.yaml, forage.json in ${dir}, and ${file.path} does not exist. ` +
        "Write a config here with `forage-ctl init`, pass --config FILE, or install the generated forage.json there (NixOS: the forage module does)",
    );
  });

  it("a missing file the user named is the config's own error, positioned like validate's", async () => {
    const error = await loadSettings(await settingsFile(join(dir, "forage.json"), {}, dir)).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/forage\.json: \(root\): cannot read config: file not found$/);
  });

  it("a config with errors throws its ConfigError with every position", async () => {
    writeFileSync(join(dir, "forage.yaml"), "user: nobody\ntemplates:\n  shell:\n    network: open\n");
    const error = await loadSettings(await settingsFile(undefined, {}, dir)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/forage\.yaml:4:14: templates\.shell\.network: /);
  });

  it("a generated forage.json that is not JSON is a SettingsError that says to regenerate it", async () => {
    writeFileSync(join(dir, "forage.json"), '{ "$comment": "Generated by forage-ctl from x; do not edit.", ');
    const error = await loadSettings(await settingsFile(undefined, {}, dir)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toMatch(
      /forage\.json is not valid JSON \(.*\): regenerate it with forage-ctl generate$/,
    );
  });
});

describe("settingsFile refuses a config an agent could have written", () => {
  /** A state directory recording one sandbox, made at `createdAt`, whose workspace is `workspace`. */
  const stateWith = (workspace: string, createdAt = "2026-01-01T00:00:00Z"): string => {
    const state = join(dir, "state");
    mkdirSync(join(state, "sandboxes"), { recursive: true });
    const metadata = {
      version: 1,
      name: "agent",
      template: "shell",
      slot: 3,
      containerName: "f3",
      runtime: "nspawn",
      createdAt,
      phase: "ready",
      creatorPid: 1,
      workspace: { mode: "direct", hostPath: workspace, managed: false },
      mounts: [],
      agentIdentity: {},
      uid: 65534,
      gid: 65534,
      pid: null,
      startedAt: null,
      cgroup: null,
      muxConfig: null,
      authorizedKeys: [],
      secrets: [],
    };
    writeFileSync(join(state, "sandboxes/agent.json"), JSON.stringify(metadata));
    return state;
  };

  it("refuses a config in a subdirectory of a sandbox's workspace, and says how to name a trusted one", async () => {
    const workspace = join(dir, "ws");
    mkdirSync(join(workspace, "sub"), { recursive: true });
    writeFileSync(join(workspace, "sub/forage.yaml"), "user: nobody\n");
    await expect(
      settingsFile(undefined, { FORAGE_STATE_DIR: stateWith(workspace) }, join(workspace, "sub")),
    ).rejects.toThrow(
      "lies inside sandbox agent's workspace, where its agent can write: name a config you trust with --config",
    );
  });

  it("refuses the workspace's top-level config when it changed after the sandbox was made (a template may lift its protection)", async () => {
    const workspace = join(dir, "ws");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "forage.yaml"), "user: nobody\n");
    await expect(settingsFile(undefined, { FORAGE_STATE_DIR: stateWith(workspace) }, workspace)).rejects.toThrow(
      "changed since sandbox agent was made, in its workspace, where its agent can write",
    );
  });

  it("control: takes the workspace's top-level config written before the sandbox, and any config outside workspaces", async () => {
    const workspace = join(dir, "ws");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "forage.yaml"), "user: nobody\n");
    const state = stateWith(workspace, new Date(Date.now() + 3_600_000).toISOString());
    expect(await settingsFile(undefined, { FORAGE_STATE_DIR: state }, workspace)).toMatchObject({
      origin: "current directory",
    });
    config("forage.yaml");
    expect(await settingsFile(undefined, { FORAGE_STATE_DIR: state }, dir)).toMatchObject({
      origin: "current directory",
    });
  });
});
