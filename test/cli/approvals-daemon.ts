import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "../../runtime/gates/approvals/approval.js";
import type { ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { askThroughDaemon } from "../../runtime/daemon/approval-client.js";
import { cliPath, repoRoot, runCli, type CliResult } from "./run-cli.js";

/**
 * GIVEN a real daemon (forage-ctl daemon, in a run and state directory of the test file's own),
 * which a root process asks through daemon-root.sock as the gates do (askThroughDaemon); the CLI
 * lists, shows and answers. No sandbox and no network: the queue needs neither. Registers its
 * own beforeAll and afterAll, so make it inside the describe that uses it.
 */
export class ApprovalsDaemon {
  readonly dir = mkdtempSync(join(tmpdir(), "forage-approvals-cli-"));
  readonly config = join(this.dir, "forage.yaml");
  readonly env = {
    FORAGE_STATE_DIR: join(this.dir, "state"),
    FORAGE_RUN_DIR: join(this.dir, "run"),
    FORAGE_SECRETS_DIR: join(this.dir, "secrets"),
  };
  readonly logged: string[] = [];
  readonly ask = askThroughDaemon({
    log: (line) => void this.logged.push(line),
    socket: join(this.env.FORAGE_RUN_DIR, "daemon-root.sock"),
  });
  private daemon: Promise<unknown> | undefined;

  constructor() {
    beforeAll(() => this.start());
    afterAll(() => this.stop());
  }

  /** forage-ctl with this daemon's config and directories. */
  run(...args: string[]): Promise<CliResult> {
    return runCli(["--config", this.config, ...args], { env: this.env });
  }

  /** Asks `what` through the daemon and hands `check` its id as forage-ctl approvals lists it; then denies it. */
  async whilePending(what: ApprovalAsk, check: (id: string) => Promise<void>): Promise<void> {
    const answer: Promise<ApprovalDecision> = this.ask(what);
    let listed: ApprovalView[] = [];
    for (let i = 0; i < 100 && listed.length === 0; i++) {
      listed = JSON.parse((await this.run("approvals", "--json")).stdout) as ApprovalView[];
      if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed).toHaveLength(1);
    const id = listed[0]?.id ?? "";
    try {
      await check(id);
    } finally {
      await this.run("deny", id);
    }
    await expect(answer).resolves.toEqual({ decision: "deny" });
  }

  private async start(): Promise<void> {
    writeFileSync(
      this.config,
      "user: nobody\ntemplates:\n  basic:\n    agents: { sh: { package: bash, executable: bash } }\n",
    );
    const child = execa(process.execPath, [cliPath, "--config", this.config, "daemon"], {
      cwd: repoRoot,
      env: { ...this.env, PATH: process.env.PATH ?? "/usr/bin:/bin" },
      extendEnv: false,
      reject: false,
    });
    let log = "";
    this.daemon = child;
    child.stderr?.on("data", (chunk: Buffer) => void (log += chunk.toString()));
    for (let i = 0; i < 200 && !log.includes("listening on"); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log).toContain("listening on");
  }

  private async stop(): Promise<void> {
    await this.run("daemon", "--stop");
    await this.daemon;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
