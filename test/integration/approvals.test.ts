import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalAsk, ApprovalDecision } from "../../runtime/gates/approvals/approval.js";
import type { ApprovalView } from "../../runtime/gates/approvals/approval-view.js";
import { askThroughDaemon } from "../../runtime/daemon/approval-client.js";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost, type CliRun } from "./harness.js";
import { startTestDaemon } from "./test-daemon.js";

/*
 * The approvals queue in a real daemon: a root process asks through daemon-root.sock
 * (askThroughDaemon, as the guard host does), root and the configured user (nobody) list and
 * answer with forage-ctl, the config's approvals.notify hook hears of each request, and
 * approvals.deadline denies what nobody answers. No sandbox is started: the queue needs none.
 */
const tools = toolsAvailable("setpriv");

describe.skipIf(!tools.run || !isRoot())("the approvals queue through the daemon", () => {
  // The hook runs as the configured user: its script and its output directory are theirs to reach.
  const hookDir = mkdtempSync(join(tmpdir(), "forage-approval-hook-"));
  const heard = join(hookDir, "heard");
  const hook = join(hookDir, "hook.sh");
  const host = new TestHost("10.207", "nobody", "", "", {
    topLevel: `approvals: { deadline: 2, notify: ["${hook}", "--tag", "forage"] }`,
  });
  const runDir = host.env.FORAGE_RUN_DIR ?? "";
  const logged: string[] = [];
  const ask = askThroughDaemon({ log: (line) => void logged.push(line), socket: join(runDir, "daemon-root.sock") });
  let daemon: Promise<unknown> | undefined;

  /** forage-ctl as the configured user, without sudo. */
  const runAsUser = async (args: string[]): Promise<CliRun> => {
    const result = await execa(
      "setpriv",
      [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, cliPath, ...args],
      {
        cwd: repoRoot,
        env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: runDir },
        extendEnv: false,
        reject: false,
      },
    );
    return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
  };
  /** The pending requests, once `count` are there, as root's forage-ctl lists them. */
  const pending = async (count: number): Promise<ApprovalView[]> => {
    let listed: ApprovalView[] = [];
    for (let i = 0; i < 100 && listed.length < count; i++) {
      listed = JSON.parse((await host.run(["approvals", "--json"])).stdout) as ApprovalView[];
      if (listed.length < count) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return listed;
  };

  beforeAll(async () => {
    // The configured user reaches the daemon's socket through the host's directory (as daemon.test.ts does).
    chmodSync(host.dir, 0o711);
    chmodSync(hookDir, 0o755);
    mkdirSync(heard);
    chownSync(heard, agentUid, agentUid);
    writeFileSync(
      hook,
      `#!/bin/sh\n# The request arrives on stdin; the arguments as configured.\ncat > "${heard}/$$.json"\necho "$*" > "${heard}/$$.args"\n`,
      { mode: 0o755 },
    );
    daemon = (await startTestDaemon(host)).exited;
  });
  afterAll(async () => {
    await host.cleanup();
    await daemon;
    rmSync(hookDir, { recursive: true, force: true });
  });

  it("lists a root process's request to root and to the configured user, and the user's approve answers it", async () => {
    const answer = ask({
      sandbox: "fix-42",
      kind: "host",
      subject: { name: "pypi.example", port: 443 },
      deadlineMs: 30_000,
    });
    const [request] = await pending(1);
    expect(request).toMatchObject({ sandbox: "fix-42", kind: "host", summary: "pypi.example:443" });
    const asUser = await runAsUser(["approvals", "--json"]);
    expect(asUser.exitCode, asUser.stderr).toBe(0);
    expect((JSON.parse(asUser.stdout) as ApprovalView[]).map((entry) => entry.id)).toEqual([request?.id]);
    const table = await runAsUser(["approvals"]);
    expect(table.stdout).toMatch(
      new RegExp(
        `^ID +SANDBOX +KIND +WHAT +AGE +DEADLINE\\n${request?.id} +fix-42 +host +pypi\\.example:443 +\\d+s +in \\d+s$`,
      ),
    );
    const approved = await runAsUser(["approve", request?.id ?? ""]);
    expect([approved.exitCode, approved.stdout]).toEqual([
      0,
      `approved ${request?.id} (host pypi.example:443 for fix-42): once`,
    ]);
    await expect(answer).resolves.toEqual({ decision: "once" });
    expect(await pending(0)).toEqual([]);
  });

  it("gives the approvals.notify hook the request as JSON on stdin, run as the configured user with its argv", async () => {
    let files: string[] = [];
    for (let i = 0; i < 100 && files.length < 2; i++, await new Promise((resolve) => setTimeout(resolve, 50)))
      files = readdirSync(heard).sort();
    const json = files.find((file) => file.endsWith(".json")) ?? "";
    expect(JSON.parse(readFileSync(join(heard, json), "utf8"))).toMatchObject({
      sandbox: "fix-42",
      kind: "host",
      subject: { name: "pypi.example", port: 443 },
      summary: "pypi.example:443",
    });
    expect(readFileSync(join(heard, json.replace(".json", ".args")), "utf8")).toBe("--tag forage\n");
  });

  it("answers deny, and an approval for a while with its end, from root's forage-ctl", async () => {
    const denied = ask({
      sandbox: "fix-42",
      kind: "ssh-sign",
      subject: { fingerprint: "SHA256:abc", comment: "me@laptop" },
      deadlineMs: 30_000,
    });
    const [first] = await pending(1);
    expect((await host.run(["deny", first?.id ?? ""])).stdout).toBe(
      `denied ${first?.id} (ssh-sign SHA256:abc (me@laptop) for fix-42)\n`,
    );
    await expect(denied).resolves.toEqual({ decision: "deny" });
    const destination = { kind: "ssh-login", user: "git", hostKey: `SHA256:${"A".repeat(43)}` } as const;
    const timed = ask({
      sandbox: "fix-42",
      kind: "ssh-sign",
      subject: { fingerprint: "SHA256:abc", comment: "me@laptop", destination },
      deadlineMs: 30_000,
    });
    const [second] = await pending(1);
    const before = Date.now();
    expect((await host.run(["approve", second?.id ?? "", "--for", "10m"])).exitCode).toBe(0);
    const decided: ApprovalDecision = await timed;
    expect(decided.decision === "for" && decided.untilMs - before).toBeGreaterThanOrEqual(600_000 - 1000);
  });

  it("refuses --always for an SSH signature, and --for where its destination is not known, with the reason in one line (exit 64); the request stays pending for another answer", async () => {
    const asked = ask({
      sandbox: "fix-42",
      kind: "ssh-sign",
      subject: { fingerprint: "SHA256:abc", comment: "me@laptop" },
      deadlineMs: 30_000,
    });
    const [request] = await pending(1);
    const refused = await runAsUser(["approve", request?.id ?? "", "--always"]);
    expect(refused.exitCode).toBe(64);
    expect(refused.stderr.trim().split("\n")).toEqual([
      expect.stringContaining(
        `${request?.id}: ssh-sign requests take --once or --for, not --always: an SSH key that always signs is a key given away`,
      ),
    ]);
    expect((await pending(1)).map((each) => each.id)).toEqual([request?.id]);
    // Nor --for: this request does not show where the signature goes, so --for could not be held to it.
    const forRefused = await runAsUser(["approve", request?.id ?? "", "--for", "10m"]);
    expect([forRefused.exitCode, forRefused.stderr]).toEqual([
      64,
      expect.stringContaining("takes --once only: its destination is not known"),
    ]);
    expect((await pending(1)).map((each) => each.id)).toEqual([request?.id]);
    expect((await runAsUser(["approve", request?.id ?? ""])).exitCode).toBe(0);
    await expect(asked).resolves.toEqual({ decision: "once" });
  });

  it("refuses an id that is not pending, naming forage-ctl approvals", async () => {
    const result = await runAsUser(["approve", "zzzzzz"]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'no pending approval "zzzzzz" (answered, expired, or never asked): see forage-ctl approvals',
    );
  });

  it("lets only root ask: the user's socket refuses approvalAsk, and root's socket refuses the user", async () => {
    const request: ApprovalAsk = { sandbox: "fix-42", kind: "host", subject: { name: "sneaky.example" } };
    const script = (socket: string) =>
      `const s = require("net").connect(${JSON.stringify(socket)}); s.on("connect", () => s.write(${JSON.stringify(JSON.stringify({ op: "approvalAsk", args: request }) + "\n")})); s.on("data", (d) => { process.stdout.write(d); process.exit(0); }); s.on("error", (e) => { console.log(e.code); process.exit(3); });`;
    const run = (socket: string) =>
      execa(
        "setpriv",
        [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, "-e", script(socket)],
        { reject: false },
      );
    expect(String((await run(join(runDir, "daemon.sock"))).stdout)).toContain(
      "approvalAsk is for root's own host processes",
    );
    expect(String((await run(join(runDir, "daemon-root.sock"))).stdout).trim()).toBe("EACCES");
    expect(await pending(0)).toEqual([]);
  });

  it("denies what nobody answers by approvals.deadline, and the sandbox's audit log has the question and the expiry", async () => {
    const started = Date.now();
    await expect(ask({ sandbox: "slow-1", kind: "host", subject: { name: "late.example" } })).resolves.toEqual({
      decision: "expired",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    const lines = (await host.run(["audit-log", "slow-1", "--json"])).stdout.trim().split("\n");
    const events = lines.map((line) => JSON.parse(line) as { event: string; detail: string });
    expect(events.map((event) => [event.event, event.detail.replace(/^[a-z2-7]{6} /, "")])).toEqual([
      ["approval-asked", "host late.example (deadline 2 s)"],
      ["approval-answered", "host late.example: expired at its deadline"],
    ]);
    expect(logged).toEqual([]);
  });
});
