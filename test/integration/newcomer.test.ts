import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daemonHello, sendRequest } from "../../runtime/daemon/client.js";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, rootWithoutLoginSession, toolsAvailable } from "../support/tools.js";
import { agentUid, type CliRun } from "./harness.js";

/*
 * A newcomer in an empty directory, typing what the README and `init` say, with no --config:
 * init → validate → up → exec → down from ./forage.config.ts, the daemon `up` starts serving that
 * same file; and the ways it must not break: a config with errors, --config, a daemon serving
 * other settings, a daemon that does not come up.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock");

/** Not used by any other test file (grep test/ bench/ for "10.2"): sandboxes here get 10.225.N.x. */
const networkBase = "10.225";

/** What `init` writes has no network base; a test must not take the default one other hosts use. */
function isolateNetwork(config: string): void {
  const text = readFileSync(config, "utf8");
  const withBase = text.replace(/^ {2}user: "nobody",$/m, `$&\n  network: { base: "${networkBase}" },`);
  expect(withBase).not.toBe(text);
  writeFileSync(config, withBase);
}

/** A private host: state, run and secrets directories of its own, so it has its own daemon. */
class Host {
  readonly run: string;
  constructor(readonly dir: string) {
    this.run = join(dir, "run");
  }
  get env(): Record<string, string> {
    return {
      FORAGE_STATE_DIR: join(this.dir, "state"),
      FORAGE_RUN_DIR: this.run,
      FORAGE_SECRETS_DIR: join(this.dir, "secrets"),
      PATH: process.env.PATH ?? "/usr/bin:/bin",
    };
  }
  /** forage-ctl as the user types it: in `cwd`, no --config unless given, no terminal. */
  async cli(cwd: string, args: string[], more: Record<string, string> = {}): Promise<CliRun> {
    const result = await execa(process.execPath, [cliPath, ...args], {
      cwd,
      env: { ...this.env, ...more },
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      stdin: "ignore",
    });
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  }
  /** The same as a user without sudo (the daemon's configured user), as the daemon test does it. */
  async asUser(cwd: string, args: string[]): Promise<CliRun> {
    const result = await execa(
      "setpriv",
      [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, cliPath, ...args],
      {
        cwd,
        env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: this.run },
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        stdin: "ignore",
      },
    );
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  }
  async cleanup(cwd: string): Promise<void> {
    await this.cli(cwd, ["down", "--all", "--yes", "-t", "1"]);
    await this.cli(cwd, ["daemon", "--stop"]);
  }
}

/** A fresh directory under `parent` that the agent user can enter (as a home directory would be). */
function freshDir(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  return dir;
}

/** ./ws, owned by the agent user: the workspace a newcomer makes. */
function workspaceIn(dir: string): string {
  const ws = join(dir, "ws");
  mkdirSync(ws);
  chownSync(ws, agentUid, agentUid);
  return ws;
}

/** `text` matched as is inside a RegExp. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** init's "next" lines, as argv: `  sudo forage-ctl up demo -t default -w DIR   # …` → ["sudo", "up", "demo", …]. */
function printedSteps(stdout: string): string[][] {
  return [...stdout.matchAll(/^ {2}(sudo )?forage-ctl (.+?)(?: +#.*)?$/gm)].map((match) => [
    ...(match[1] === undefined ? [] : ["sudo"]),
    ...(match[2] ?? "").split(" "),
  ]);
}

/** A printed step as its user types it: with sudo as root, else as the user (who owns the config). */
function typed(host: Host, cwd: string, step: string[] | undefined): Promise<CliRun> {
  const [first, ...rest] = step ?? [];
  return first === "sudo" ? host.cli(cwd, rest) : host.asUser(cwd, step ?? []);
}

/** The path overrides a daemon started by this host's forage-ctl runs with, written out. */
function servedPaths(host: Host): Record<string, string | null> {
  return {
    FORAGE_STATE_DIR: join(host.dir, "state"),
    FORAGE_SECRETS_DIR: join(host.dir, "secrets"),
    FORAGE_SYSTEMS_DIR: null,
    FORAGE_GENERATED_DIR: null,
    FORAGE_MODULES_DIR: null,
  };
}

/** A fresh host and an empty project directory in a temp directory of their own. */
function newScene(): { root: string; host: Host; project: string; config: string } {
  const root = mkdtempSync(join(tmpdir(), "forage-newcomer-"));
  // Like /home: users traverse to their own directories (and to the daemon's socket under run/).
  chmodSync(root, 0o711);
  const project = freshDir(root, "project");
  return { root, host: new Host(freshDir(root, "host")), project, config: join(project, "forage.config.ts") };
}

async function removeScene(scene: { root: string; host: Host; project: string }): Promise<void> {
  await scene.host.cleanup(scene.project);
  rmSync(scene.root, { recursive: true, force: true });
}

describe.skipIf(!tools.run || !isRoot())("a newcomer's own config, in the current directory", () => {
  let root: string, host: Host, project: string, config: string;
  let steps: string[][] = [];
  beforeAll(() => void ({ root, host, project, config } = newScene()));
  afterAll(() => removeScene({ root, host, project }));

  it("init, run with sudo, writes the invoking user (not root) and the steps to take next", async () => {
    const result = await host.cli(project, ["init"], { SUDO_USER: "nobody" });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^wrote forage\.config\.ts \(user "nobody", from \$SUDO_USER\)$/m);
    expect(readFileSync(config, "utf8")).toMatch(/^ {2}user: "nobody",$/m);
    // The invoking user's file: they edit it.
    expect(statSync(config).uid).toBe(agentUid);
    steps = printedSteps(result.stdout);
    expect(steps).toEqual([
      ["validate"],
      ["sudo", "up", "demo", "-t", "default", "-w", "DIR"],
      ["sudo", "exec", "demo", "--", "id"],
      ["sudo", "down", "demo"],
    ]);
    isolateNetwork(config);
  });

  it("validate, as printed, finds ./forage.config.ts", async () => {
    const result = await typed(host, project, steps[0]);
    expect(result).toMatchObject({
      exitCode: 0,
      stderr: "",
      stdout: "forage.config.ts: valid (2 templates: claude, default)\n",
    });
  });

  it("up, as printed with -w ./ws, runs the first template from ./forage.config.ts and starts a daemon serving that file", async () => {
    workspaceIn(project);
    const result = await typed(
      host,
      project,
      (steps[1] ?? []).map((arg) => (arg === "DIR" ? "./ws" : arg)),
    );
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^sandbox demo is up \(template default, 10\.225\.\d+\.2, workspace .*\/project\/ws, direct\)$/m,
    );
    // Absolute: the daemon runs in "/", not here.
    expect(await daemonHello(join(host.run, "daemon.sock"))).toEqual({
      settings: config,
      pid: expect.any(Number) as number,
      version: expect.stringMatching(/^\d+\.\d+\.\d+\+\d+@\/.+$/) as string,
      paths: servedPaths(host),
    });
    expect(readFileSync(join(host.run, "daemon.log"), "utf8")).toContain(`settings from ${config}`);
    // Like every request, hello's arguments are checked: it takes none.
    await expect(
      sendRequest({ op: "hello", args: { settings: "/etc/shadow" } }, {}, join(host.run, "daemon.sock")),
    ).rejects.toThrow(/^invalid hello request: /);
  });

  it("exec, as printed, runs in the sandbox as the agent; what it writes to /workspace is in ./ws", async () => {
    const id = await typed(host, project, steps[2]);
    expect(id).toMatchObject({ exitCode: 0, stderr: "" });
    expect(id.stdout).toMatch(/^uid=65534\(agent\) gid=65534\(agent\)/);
    const write = await host.cli(project, [
      "exec",
      "demo",
      "--",
      "sh",
      "-c",
      "echo written inside > /workspace/hello.txt",
    ]);
    expect(write).toMatchObject({ exitCode: 0, stderr: "" });
    expect(readFileSync(join(project, "ws/hello.txt"), "utf8")).toBe("written inside\n");
  });

  it("the user without sudo, in the same directory, is served by the daemon with no note", async () => {
    const result = await host.asUser(project, ["ps"]);
    expect(result).toMatchObject({ exitCode: 0, stderr: "" });
    expect(result.stdout).toMatch(/^demo +default /m);
  });

  it("the user without sudo, in a directory with another config, is told in one line the daemon does not serve it", async () => {
    const elsewhere = freshDir(root, "elsewhere");
    copyFileSync(config, join(elsewhere, "forage.config.ts"));
    const result = await host.asUser(elsewhere, ["ps"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe(
      `forage-ctl: note: the daemon serves ${config}, not ./forage.config.ts (it never loads a user's config; sudo forage-ctl runs from ./forage.config.ts)\n`,
    );
    expect(result.stdout).toMatch(/^demo +default /m);
  });

  it("up as root with other settings while the daemon runs warns, naming both, and goes on with its own", async () => {
    const other = join(freshDir(root, "other"), "forage.config.ts");
    copyFileSync(config, other);
    const result = await host.cli(project, ["up", "second", "-t", "default", "-w", "./ws", "--config", other]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(
        `^forage-ctl: warning: the running forage daemon \\(pid \\d+\\) serves ${literal(config)}, not ${literal(other)}: `,
      ),
    );
    expect(result.stdout).toMatch(/^sandbox second is up /m);
    expect((await host.cli(project, ["down", "second", "-t", "1"])).exitCode).toBe(0);
  });

  it("down, as printed, removes the sandbox and keeps ./ws", async () => {
    const result = await typed(host, project, steps[3]);
    expect(result).toMatchObject({ exitCode: 0, stderr: "", stdout: "removed demo\n" });
    expect(readFileSync(join(project, "ws/hello.txt"), "utf8")).toBe("written inside\n");
  });

  it.skipIf(!rootWithoutLoginSession())(
    "init refuses with exit 64 when it has no user to write (no --user, sudo or login session) and no terminal to ask on",
    async () => {
      const empty = freshDir(root, "no-user");
      const result = await host.cli(empty, ["init"]);
      expect(result.exitCode).toBe(64);
      expect(result.stderr).toMatch(
        /^forage-ctl: init: cannot tell which host user owns your workspaces \(.*\): pass --user NAME, the host user who owns your workspaces/,
      );
      expect(result.stdout).toBe("");
    },
  );
});

describe.skipIf(!tools.run || !isRoot())("a newcomer's config with errors, and --config", () => {
  let root: string, host: Host, project: string, config: string;
  beforeAll(() => void ({ root, host, project, config } = newScene()));
  afterAll(() => removeScene({ root, host, project }));

  it("up with a config that has errors prints its positioned errors (exit 6), like exec, and starts no daemon", async () => {
    expect((await host.cli(project, ["init", "--user", "nobody"])).exitCode).toBe(0);
    isolateNetwork(config);
    writeFileSync(config, readFileSync(config, "utf8").replace('network: "none"', 'network: "open"'));
    workspaceIn(project);
    const up = await host.cli(project, ["up", "demo", "-t", "default", "-w", "./ws"]);
    expect(up.exitCode).toBe(6);
    expect(up.stderr).toMatch(
      /^forage\.config\.ts:\d+:\d+: templates\.default\.network: must be "none", "restricted", "full" or an object\nforage-ctl: 1 problem in the config\n$/,
    );
    expect(existsSync(join(host.run, "daemon.log"))).toBe(false);
    const exec = await host.cli(project, ["exec", "demo", "--", "true"]);
    expect(exec).toMatchObject({ exitCode: 6, stderr: up.stderr });
  });

  it("--config given explicitly reports the same errors", async () => {
    const up = await host.cli(root, [
      "up",
      "demo",
      "-t",
      "default",
      "-w",
      "./project/ws",
      "--config",
      "project/forage.config.ts",
    ]);
    expect(up.exitCode).toBe(6);
    expect(up.stderr).toMatch(/^project\/forage\.config\.ts:\d+:\d+: templates\.default\.network: must be /);
    expect(existsSync(join(host.run, "daemon.log"))).toBe(false);
  });

  it("--config given explicitly (relative, from another directory) runs the sandbox and hands the daemon the absolute path", async () => {
    writeFileSync(config, readFileSync(config, "utf8").replace('network: "open"', 'network: "none"'));
    const up = await host.cli(root, [
      "up",
      "demo",
      "-t",
      "default",
      "-w",
      "./project/ws",
      "--config",
      "project/forage.config.ts",
    ]);
    expect(up.stderr).toBe("");
    expect(up.exitCode).toBe(0);
    expect(await daemonHello(join(host.run, "daemon.sock"))).toEqual({
      settings: config,
      pid: expect.any(Number) as number,
      version: expect.stringMatching(/^\d+\.\d+\.\d+\+\d+@\/.+$/) as string,
      paths: servedPaths(host),
    });
    const exec = await host.cli(root, [
      "--config",
      "project/forage.config.ts",
      "exec",
      "demo",
      "--",
      "sh",
      "-c",
      "echo via --config > /workspace/f",
    ]);
    expect(exec.exitCode).toBe(0);
    expect(readFileSync(join(project, "ws/f"), "utf8")).toBe("via --config\n");
    // Root's exec went to the daemon, which serves this very file with this build.
    const execsLogged = (): number =>
      readFileSync(join(host.run, "daemon.log"), "utf8")
        .split("\n")
        .filter((line) => line.endsWith("exec demo")).length;
    expect(execsLogged()).toBe(1);
    // Control: with another settings file (a copy), root does the work itself.
    copyFileSync(config, join(project, "copy.config.ts"));
    expect((await host.cli(root, ["--config", "project/copy.config.ts", "exec", "demo", "--", "true"])).exitCode).toBe(
      0,
    );
    expect(execsLogged()).toBe(1);
    expect((await host.cli(root, ["down", "demo", "--config", "project/forage.config.ts"])).stdout).toBe(
      "removed demo\n",
    );
  });

  it("root's up and down go to that daemon, with the config as the file says now: a template added meanwhile, errors written meanwhile", async () => {
    const logged = (call: string): number =>
      readFileSync(join(host.run, "daemon.log"), "utf8")
        .split("\n")
        .filter((line) => line.endsWith(call)).length;
    const original = readFileSync(config, "utf8");
    // A second template, added after the daemon loaded the file.
    writeFileSync(
      config,
      original.replace(/\n  templates: \{\n/, '\n  templates: {\n    later: { extends: "default" },\n'),
    );
    const up = await host.cli(project, ["up", "late", "-t", "later", "-w", "./ws"]);
    expect(up.stderr).toBe("");
    expect(up.stdout).toMatch(/^sandbox late is up \(template later, /m);
    expect(logged("up late")).toBe(1);
    // The same config with an error: the daemon reports it as root's own up would (exit 6, positioned).
    writeFileSync(config, original.replace('network: "none"', 'network: "open"'));
    const broken = await host.cli(project, ["down", "late"]);
    expect(broken.exitCode).toBe(6);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^${literal(config)}:\\d+:\\d+: templates\\.default\\.network: must be "none", "restricted", "full" or an object\\nforage-ctl: 1 problem in the config\\n$`,
      ),
    );
    writeFileSync(config, original);
    expect(await host.cli(project, ["down", "late"])).toMatchObject({ exitCode: 0, stdout: "removed late\n" });
    // The refused one never reached the operation (a call is logged once its request is read with good settings).
    expect(logged("down late")).toBe(1);
  });
});

describe.skipIf(!tools.run || !isRoot())("up as root when the daemon does not come up", () => {
  let root: string, host: Host, project: string, config: string;
  let holder: ResultPromise | undefined;
  beforeAll(() => void ({ root, host, project, config } = newScene()));
  afterAll(async () => {
    holder?.kill();
    await holder?.catch(() => undefined);
    await removeScene({ root, host, project });
  });

  it("warns with the daemon's log file and its last lines, and does the work itself", async () => {
    expect((await host.cli(project, ["init", "--user", "nobody"])).exitCode).toBe(0);
    isolateNetwork(config);
    workspaceIn(project);
    // A daemon that holds the run directory's lock but has no socket: a new one steps aside.
    mkdirSync(host.run, { recursive: true });
    holder = execa("flock", ["--exclusive", join(host.run, "daemon.lock"), "sh", "-c", "echo locked; exec sleep 120"]);
    await new Promise<void>((resolve) => holder?.stdout?.once("data", () => resolve()));
    const up = await host.cli(project, ["up", "demo", "-t", "default", "-w", "./ws"]);
    expect(up.exitCode).toBe(0);
    expect(up.stderr).toContain(
      "forage-ctl: warning: the forage daemon exited (status 1); carrying on without it (root does this command itself), but commands run without sudo need it.",
    );
    expect(up.stderr).toContain(
      `The end of ${join(host.run, "daemon.log")}:\n  | forage-ctl: a daemon is already running for this run directory\n`,
    );
    expect(up.stderr).not.toContain("internal error");
    expect((await host.cli(project, ["exec", "demo", "--", "true"])).exitCode).toBe(0);
    expect((await host.cli(project, ["down", "demo"])).exitCode).toBe(0);
  });
});
