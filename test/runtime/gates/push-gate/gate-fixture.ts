import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { runCommand } from "../../../../runtime/core/run-command.js";
import { runtimePaths, type RuntimePaths } from "../../../../runtime/core/paths.js";
import { outboxLayout, type OutboxLayout } from "../../../../runtime/gates/push-gate/outbox.js";
import { pushGateHomeConfig } from "../../../../runtime/gates/push-gate/sandbox-git-config.js";
import {
  relayPath,
  startSandboxPushGate,
  type SandboxPushGate,
} from "../../../../runtime/gates/push-gate/start-push-gate.js";
import { writeMetadata } from "../../../../runtime/state/metadata-store.js";
import { keepAlwaysPushed, StandingPushes } from "../../../../runtime/gates/push-gate/standing-pushes.js";
import { sandboxMetadata } from "../../../support/sandbox-metadata.js";
import { ApprovalDesk } from "./approval-desk.js";

/** The agent's git identity, first in its home git config. */
export const agentIdentity = "[user]\n\tname = Agent\n\temail = agent@example.test\n";

/**
 * GIVEN a host user with a bare "upstream" repository and a clone of it (the repository a sandbox
 * works on), and an agent (another uid, as in a sandbox) with a clone of its own whose home git
 * config includes the gate's remotes config, as a sandbox's does; the gate started on them. Each
 * test file gets its own user, uid and directory (`tag` keeps them apart when files run at once).
 */
export class GateFixture {
  readonly account: string;
  readonly agentUid: number;
  readonly root = mkdtempSync(join(tmpdir(), "forage-push-gate-"));
  readonly home = join(this.root, "home");
  readonly upstream = join(this.home, "upstream.git");
  readonly userRepo = join(this.home, "repo");
  readonly agentHome = join(this.root, "agent");
  readonly work = join(this.agentHome, "work");
  readonly desk = new ApprovalDesk();
  readonly paths: RuntimePaths = runtimePaths(join(this.root, "state"), {
    FORAGE_STATE_DIR: join(this.root, "state"),
    FORAGE_RUN_DIR: join(this.root, "run"),
  });
  readonly layout: OutboxLayout = outboxLayout(this.paths, "pushy");
  uid = 0;
  gate: SandboxPushGate | undefined;
  /** With `standing`: the pushes approved beyond their request, kept in this sandbox's metadata; and the audit lines. */
  standing: StandingPushes | undefined;
  readonly records: string[] = [];

  /** `protectedBranches`: the template's pushGate.protectedBranches (default null: the gate's defaults). */
  constructor(
    tag: string,
    uidOffset: number,
    private readonly options: { standing?: boolean; protectedBranches?: string[] | null } = {},
  ) {
    this.account = `fp${tag}${process.pid % 100000}`;
    this.agentUid = 61_000 + uidOffset * 1000 + (process.pid % 1000);
    beforeAll(() => this.setUp(), 60_000);
    afterAll(() => this.tearDown());
    beforeEach(() => {
      this.desk.asks.length = 0;
      this.desk.policy = () => "wait";
    });
  }

  /** git as the host user (synchronously: it never reaches the gate). */
  asUser(args: string[], cwd = this.home): string {
    return execFileSync(
      "setpriv",
      [`--reuid=${this.uid}`, `--regid=${this.uid}`, "--init-groups", "--", "git", ...args],
      { cwd, env: { HOME: this.home, PATH: "/usr/bin:/bin" }, encoding: "utf8" },
    );
  }

  /** git as the agent in its clone; asynchronous: the gate answers from this very process. */
  async asAgent(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ status: number | undefined; output: string; stdout: string }> {
    const result = await runCommand(
      "setpriv",
      [`--reuid=${this.agentUid}`, `--regid=${this.agentUid}`, "--clear-groups", "--", "git", "-C", this.work, ...args],
      {
        env: { HOME: this.agentHome, PATH: "/usr/bin:/bin", ...env },
        reject: false,
        timeoutMs: 60_000,
      },
    );
    return { status: result.exitCode, output: `${result.stdout}\n${result.stderr}`, stdout: `${result.stdout}` };
  }

  /** The commit `ref` names in a bare repository (default: the upstream), or null. */
  has(ref: string, repository = this.upstream): string | null {
    const said = spawnSync("git", ["--git-dir", repository, "rev-parse", "--verify", "--quiet", ref], {
      encoding: "utf8",
    });
    return said.status === 0 ? said.stdout.trim() : null;
  }

  /** A new commit in the agent's clone; its id. */
  async commit(file: string, message: string): Promise<string> {
    writeFileSync(join(this.work, file), `${message}\n`);
    chownSync(join(this.work, file), this.agentUid, this.agentUid);
    expect((await this.asAgent(["add", file])).status).toBe(0);
    expect((await this.asAgent(["commit", "-q", "-m", message])).status).toBe(0);
    return (await this.asAgent(["rev-parse", "HEAD"])).output.trim();
  }

  /** A new bare repository of the user's, with the upstream's main: another upstream. */
  bareRepository(name: string): string {
    const path = join(this.home, name);
    this.asUser(["clone", "-q", "--bare", this.upstream, path]);
    return path;
  }

  /** The URL that takes a push straight to the gate for `remote`, whatever the agent's config says. */
  gateUrl(remote: string): string {
    return `ext::${relayPath()} %S ${remote} ${this.layout.socket}`;
  }

  private async setUp(): Promise<void> {
    execFileSync("useradd", [
      "--no-create-home",
      "--home-dir",
      this.home,
      "--shell",
      "/bin/sh",
      "--comment",
      "Forage push gate test (removed at the end)",
      this.account,
    ]);
    this.uid = Number(execFileSync("id", ["-u", this.account], { encoding: "utf8" }).trim());
    execFileSync("chmod", ["755", this.root]);
    mkdirSync(this.home, { mode: 0o700 });
    chownSync(this.home, this.uid, this.uid);
    this.asUser(["config", "--global", "user.name", "Host User"]);
    this.asUser(["config", "--global", "user.email", "user@example.test"]);
    this.asUser(["init", "-q", "--bare", "-b", "main", this.upstream]);
    this.asUser(["clone", "-q", this.upstream, this.userRepo]);
    this.asUser(["-C", this.userRepo, "commit", "-q", "--allow-empty", "-m", "first"]);
    this.asUser(["-C", this.userRepo, "push", "-q", "origin", "main"]);
    // The agent: its own uid and clone (a sandbox's workspace), and the sandbox's home git config.
    mkdirSync(join(this.agentHome, ".config/git"), { recursive: true });
    this.asUser(["clone", "-q", this.upstream, join(this.home, "agent-work")]);
    execFileSync("mv", [join(this.home, "agent-work"), this.work]);
    execFileSync("chown", ["-R", `${this.agentUid}:${this.agentUid}`, this.agentHome]);
    if (this.options.standing === true) {
      // The sandbox's metadata, where an --always is kept, as up writes it for a template with pushGate.
      await writeMetadata(
        this.paths,
        sandboxMetadata({
          name: "pushy",
          template: "t",
          slot: 1,
          hostPath: this.work,
          pushGate: { protectedBranches: null },
        }),
      );
      this.standing = new StandingPushes([], (pushed) => keepAlwaysPushed(this.paths, "pushy", pushed));
    }
    this.gate = await startSandboxPushGate({
      ...(this.standing === undefined
        ? {}
        : { standing: this.standing, record: (line: string) => void this.records.push(line) }),
      paths: this.paths,
      sandbox: "pushy",
      workspace: {
        mode: "git-worktree",
        hostPath: this.work,
        managed: true,
        sourceRepo: this.userRepo,
        stores: [{ kind: "git", path: join(this.userRepo, ".git") }],
      },
      user: { name: this.account, uid: this.uid, gid: this.uid, home: this.home },
      agent: { uid: this.agentUid, gid: this.agentUid },
      protectedBranches: this.options.protectedBranches ?? null,
      ask: this.desk.ask,
      deadlineMs: 5_000,
      // On the host the relay and socket are at their own paths, not the sandbox's mount points.
      sandboxPaths: { relay: relayPath(), socket: this.layout.socket },
    });
    writeFileSync(
      join(this.agentHome, ".config/git/config"),
      `${agentIdentity}${pushGateHomeConfig(this.layout.remotesConfig)}`,
    );
  }

  private async tearDown(): Promise<void> {
    await this.gate?.close();
    spawnSync("userdel", [this.account]);
    rmSync(this.root, { recursive: true, force: true });
  }
}
