import { execFileSync } from "node:child_process";
import { appendFileSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { cliPath, repoRoot } from "../cli/run-cli.js";

/** The host user sandboxes run as in these tests: present on every Linux host, never root. */
export const agentUid = 65534;

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * A private Forage host for one test file: its own state, run and secrets directories, a config
 * with the test templates, and helpers that run the real forage-ctl against them.
 */
export class TestHost {
  readonly dir = mkdtempSync(join(tmpdir(), "forage-it-"));
  readonly secretValue = `test-secret-${Math.random().toString(36).slice(2)}`;
  readonly config = join(this.dir, "forage.yaml");

  /** A client key pair whose public half is in the config's authorizedKeys. */
  readonly sshKey = join(this.dir, "client_ed25519");

  /**
   * `extraConfig` is appended under `templates:`; `networkSettings` goes inside `network: { … }`;
   * `more.secrets` (name → value) become secret files too; `more.topLevel` is added as is;
   * `more.runtime` is the runtime of the config's own templates (and those extending them).
   */
  constructor(
    base = "10.231",
    user = "nobody",
    extraConfig = "",
    networkSettings = "",
    more: { secrets?: Record<string, string>; topLevel?: string; runtime?: string } = {},
  ) {
    const secretFiles: Record<string, string> = {};
    for (const [name, value] of Object.entries({ "demo-key": this.secretValue, ...more.secrets })) {
      secretFiles[name] = join(this.dir, name);
      writeFileSync(secretFiles[name], `${value}\n`, { mode: 0o600 });
    }
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "forage-test", "-f", this.sshKey]);
    const config = testConfig(
      secretFiles,
      base,
      readFileSync(`${this.sshKey}.pub`, "utf8").trim(),
      user,
      networkSettings,
      more.topLevel ?? "",
      more.runtime,
    );
    writeFileSync(this.config, config + extraConfig);
  }

  /** More environment for every forage-ctl run (e.g. FORAGE_SYSTEMS_DIR). */
  readonly extraEnv: Record<string, string> = {};

  /** FORAGE_STATE_DIR; a test may move it (e.g. onto a filesystem it made) before the first run. */
  stateDir = join(this.dir, "state");

  get env(): Record<string, string> {
    return {
      ...this.extraEnv,
      FORAGE_STATE_DIR: this.stateDir,
      FORAGE_RUN_DIR: join(this.dir, "run"),
      FORAGE_SECRETS_DIR: join(this.dir, "secrets"),
      PATH: process.env.PATH ?? "/usr/bin:/bin",
    };
  }

  /** Appends templates (lines under `templates:`) to the config: for ones that name paths made after the host (its workspaces). */
  addTemplates(lines: string): void {
    appendFileSync(this.config, lines);
  }

  /** A workspace directory owned by the agent user. */
  workspace(name: string): string {
    const path = join(this.dir, "workspaces", name);
    mkdirSync(path, { recursive: true });
    chownSync(path, agentUid, agentUid);
    return path;
  }

  async run(args: string[], input?: string): Promise<CliRun> {
    const result = await execa(process.execPath, [cliPath, "--config", this.config, ...args], {
      cwd: repoRoot,
      env: this.env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      ...(input === undefined ? { stdin: "ignore" as const } : { input }),
    });
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  }

  /** Runs a shell snippet in a sandbox as the agent and returns its stdout (asserting success). */
  async sh(sandbox: string, script: string): Promise<string> {
    const result = await this.run(["exec", sandbox, "--", "sh", "-c", script]);
    if (result.exitCode !== 0) throw new Error(`exec in ${sandbox} failed (${result.exitCode}): ${result.stderr}`);
    return result.stdout;
  }

  /**
   * Runs a shell script in a sandbox as root (`forage-ctl shell`, the script on its stdin) and
   * returns its stdout (asserting success). Root inside keeps the capabilities the agent lacks and
   * runs under the same filter and no_new_privs: an escape test's control where the protection
   * is "the agent has no capability X".
   */
  async rootSh(sandbox: string, script: string): Promise<string> {
    const result = await this.run(["shell", sandbox], script);
    if (result.exitCode !== 0)
      throw new Error(`root shell in ${sandbox} failed (${result.exitCode}): ${result.stderr}`);
    return result.stdout;
  }

  /**
   * The slot of a running sandbox (its namespace f<slot>, link ve-f<slot>, table forage_f<slot>):
   * slots are host-wide, so another test's sandbox may hold slot 1.
   */
  async slotOf(sandbox: string): Promise<number> {
    const listed = JSON.parse((await this.run(["ps", "--json"])).stdout) as { name: string; slot: number }[];
    const found = listed.find((entry) => entry.name === sandbox);
    if (found === undefined) throw new Error(`${sandbox} is not listed: ${JSON.stringify(listed)}`);
    return found.slot;
  }

  async cleanup(): Promise<void> {
    // `up` as root starts a daemon for this host's run directory; stopped first, since it would
    // start a warm pool's members again behind the down.
    await this.run(["daemon", "--stop"]);
    await this.run(["down", "--all", "--yes", "-t", "1"]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function testConfig(
  secretFiles: Record<string, string>,
  base: string,
  sshKey: string,
  user: string,
  networkSettings: string,
  topLevel: string,
  runtime: string | undefined,
): string {
  // Only the templates that extend nothing name it: the rest inherit it.
  const runtimeLine = runtime === undefined ? "" : `\n    runtime: ${runtime}`;
  const secrets = Object.entries(secretFiles)
    .map(([name, path]) => `  ${name}: ${path}\n`)
    .join("");
  return `user: ${user}
network: { base: "${base}"${networkSettings === "" ? "" : `, ${networkSettings}`} }
authorizedKeys: ["${sshKey}"]
${topLevel}
secrets:
${secrets}templates:
  basic:
    description: plain sandbox${runtimeLine}
    agents:
      helper: { package: bashInteractive, executable: bash }
    initCommands:
      - echo ready > /tmp/init-marker
  readonly:
    extends: basic
    readOnlyWorkspace: true
  keyed:
    description: an agent with an API key${runtimeLine}
    agents:
      keyed: { package: coreutils, executable: env, secretName: demo-key, authEnvVar: DEMO_API_KEY }
  broken-init:
    extends: basic
    initCommands: ["exit 3"]
  sshable:
    extends: basic
    ssh: true
  limited:
    extends: basic
    resourceLimits: { tasksMax: 32, memoryMax: 96M, cpuQuota: 50% }
`;
}
