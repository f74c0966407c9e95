import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { TmuxTerminal } from "./tmux-terminal.js";
import { askThroughDaemon } from "../../runtime/daemon/approval-client.js";

/*
 * `forage-ctl pick` used as a person would: on a real terminal (tmux), keys typed, the screen
 * read, against real sandboxes; what it did is checked with forage-ctl ps. The tests run in order
 * and build on each other: the wizard makes the first sandbox, the list tests add more.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "tmux", "git");

describe.skipIf(!tools.run || !isRoot())("forage-ctl pick on a terminal", () => {
  // 10.219 is used by no other test file (grep test/ bench/ for "10.2").
  const host = new TestHost("10.219");
  const terminal = new TmuxTerminal(host.dir);
  const wizardDir = join(host.dir, "workspaces", "wizard-made");
  const repo = join(host.dir, "repos", "app");
  const { HOME: home = "/root", LANG: lang = "C.UTF-8" } = process.env;

  /**
   * pick on the terminal, run in `cwd`, with the test host's settings and state. CI=true as on a
   * CI machine, always: ink would draw nothing but the last frame if pick let it see that.
   */
  const pick = (cwd = host.dir): Promise<void> =>
    terminal.start(
      [process.execPath, cliPath, "--config", host.config, "pick"],
      { ...host.env, HOME: home, LANG: lang, CI: "true" },
      cwd,
    );
  const listed = async (): Promise<{ name: string; template: string; status: string; workspaceMode: string }[]> =>
    JSON.parse((await host.run(["ps", "--json"])).stdout) as {
      name: string;
      template: string;
      status: string;
      workspaceMode: string;
    }[];

  /** Detaches from `name`'s session as a person would (C-b d): the list comes back, and q ends pick. */
  const detach = async (name: string): Promise<void> => {
    await terminal.waitFor(/\$ *\n/);
    await terminal.keys("C-b");
    await terminal.keys("d");
    await terminal.waitFor(new RegExp(`Forage sandboxes[\\s\\S]*back from ${name}`));
    await terminal.keys("q");
    await terminal.waitFor("[exited 0]");
  };

  /** pick in the wizard's directory, through its first two steps (the template basic) to the name it proposes. */
  const wizardToName = async (): Promise<void> => {
    await pick(wizardDir);
    await terminal.waitFor("step 1 of 5");
    await terminal.keys("Enter");
    await terminal.waitFor("› basic");
    await terminal.keys("Enter");
    await terminal.waitFor("> wizard-made");
  };

  beforeAll(async () => {
    host.workspace("wizard-made");
    // The agent user reaches its repository through the host's directory (mkdtemp made it 0700).
    chmodSync(host.dir, 0o755);
    // A git repository of the agent user's: sandboxes made from it get worktrees and are listed together.
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, "README.md"), "hello\n");
    await execa("chown", ["-R", `${agentUid}:${agentUid}`, join(host.dir, "repos")]);
    const git = (args: string[]) =>
      execa("git", ["-C", repo, ...args], {
        uid: agentUid,
        gid: agentUid,
        env: {
          HOME: host.dir,
          GIT_AUTHOR_NAME: "o",
          GIT_AUTHOR_EMAIL: "o@example.com",
          GIT_COMMITTER_NAME: "o",
          GIT_COMMITTER_EMAIL: "o@example.com",
        },
      });
    await git(["init", "-q", "-b", "main"]);
    await git(["add", "-A"]);
    await git(["commit", "-q", "-m", "initial"]);
  });
  afterAll(async () => {
    await terminal.stop();
    await host.cleanup();
  });

  it("opens the creation wizard at once when there is no sandbox; Esc shows the empty list", async () => {
    await pick();
    await terminal.waitFor("New sandbox · step 1 of 5: Project directory");
    await terminal.keys("Escape");
    await terminal.waitFor("No sandboxes yet: n creates one, q quits.");
  });

  it("shows an invalid name's problem under the name as it is typed, and does not go on", async () => {
    await wizardToName();
    await terminal.keys("C-u");
    await terminal.type("Bad_Name");
    await terminal.waitFor(`invalid sandbox name "Bad_Name": use 1-63 characters of a-z, 0-9 and '-'`);
    await terminal.keys("Enter");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await terminal.screen()).toContain("step 3 of 5: Sandbox name");
  });

  it("comes back to the wizard's summary with its answers and up's error when up fails, and leaves nothing", async () => {
    await wizardToName();
    await terminal.keys("Enter");
    await terminal.waitFor("step 4 of 5: Advanced");
    // An e-mail up refuses (the daemon checks every request): up fails before anything is made.
    await terminal.keys("Down", "Down", "Down");
    await terminal.type("not-an-email");
    await terminal.waitFor("git email: not-an-email");
    await terminal.keys("Enter");
    await terminal.waitFor(/step 5 of 5[\s\S]*name +wizard-made/);
    await terminal.keys("Enter");
    await terminal.waitFor(/step 5 of 5[\s\S]*name +wizard-made[\s\S]*up failed: [\s\S]*gitEmail/, 60_000);
    expect(await listed()).toEqual([]);
    // Back a step keeps the answers; out of the wizard, the (empty) list.
    await terminal.keys("Escape");
    await terminal.waitFor(/step 4 of 5: Advanced[\s\S]*git email: not-an-email/);
    // One Esc at a time: two in a row reach ink as one Alt-Esc.
    for (const step of ["step 3 of 5", "step 2 of 5", "step 1 of 5", "No sandboxes yet: n creates one, q quits."]) {
      await terminal.keys("Escape");
      await terminal.waitFor(step);
    }
    await terminal.keys("q");
  });

  it("creates a real sandbox with the wizard (Tab completes the directory) through up's path, and attaches to it", async () => {
    await pick();
    await terminal.waitFor("step 1 of 5");
    await terminal.keys("C-u");
    await terminal.type(join(host.dir, "workspaces", "wiz"));
    await terminal.keys("Tab");
    await terminal.waitFor(`> ${wizardDir}/`);
    await terminal.keys("Enter");
    await terminal.waitFor("› basic");
    await terminal.keys("Enter");
    await terminal.waitFor("> wizard-made");
    await terminal.keys("Enter");
    await terminal.waitFor("step 4 of 5: Advanced");
    await terminal.keys("Down", "Space");
    await terminal.waitFor("[ ] mount my ~/.tmux.conf");
    await terminal.keys("Enter");
    await terminal.waitFor(/step 5 of 5[\s\S]*template +basic[\s\S]*name +wizard-made[\s\S]*tmux config not mounted/);
    await terminal.keys("Enter");
    // The sandbox's own tmux session "forage" (its status line) is on the screen.
    await terminal.waitFor(/\[forage\] 0:helper/, 90_000);
    expect(await listed()).toEqual([
      expect.objectContaining({ name: "wizard-made", template: "basic", status: "running", workspaceMode: "direct" }),
    ]);
    await detach("wizard-made");
  });

  it("lists the sandboxes grouped by repository, with template, status and workspace mode", async () => {
    for (const name of ["app-one", "app-two"])
      expect((await host.run(["up", name, "-t", "basic", "-r", repo])).exitCode).toBe(0);
    expect((await host.run(["stop", "app-two", "-t", "1"])).exitCode).toBe(0);
    await pick();
    const screen = await terminal.waitFor("Forage sandboxes");
    const lines = screen.split("\n");
    const at = (pattern: RegExp): number => lines.findIndex((line) => pattern.test(line));
    expect(at(/^›? *app-one +basic +running +git-worktree$/)).toBe(at(new RegExp(`^${repo}$`)) + 1);
    expect(at(/^ *app-two +basic +stopped +git-worktree$/)).toBe(at(new RegExp(`^${repo}$`)) + 2);
    expect(at(/^ *wizard-made +basic +running +direct$/)).toBe(at(new RegExp(`^${wizardDir}$`)) + 1);
  });

  it("narrows the list to what / filters, and shows every sandbox again on Esc", async () => {
    await pick();
    await terminal.waitFor("Forage sandboxes");
    await terminal.keys("/");
    await terminal.type("two");
    const filtered = await terminal.waitFor("filter: two");
    expect(filtered).toMatch(/app-two/);
    expect(filtered).not.toMatch(/app-one|wizard-made/);
    await terminal.keys("Escape");
    await terminal.waitFor((screen) => ["app-one", "app-two", "wizard-made"].every((name) => screen.includes(name)));
  });

  it("shows a taken name's problem in the wizard that n opens", async () => {
    await pick(wizardDir);
    await terminal.waitFor("Forage sandboxes");
    await terminal.keys("n");
    await terminal.waitFor("step 1 of 5");
    await terminal.keys("Enter");
    await terminal.waitFor("step 2 of 5");
    await terminal.keys("Enter");
    await terminal.waitFor("a sandbox named wizard-made exists already: choose another name");
  });

  it("removes the selected sandbox after d and y, as down does", async () => {
    await pick();
    await terminal.waitFor("Forage sandboxes");
    await terminal.keys("j");
    await terminal.waitFor(/› app-two/);
    await terminal.keys("d");
    await terminal.waitFor("Remove app-two (as forage-ctl down does)? y removes it");
    await terminal.keys("y");
    await terminal.waitFor("removed app-two", 60_000);
    expect((await listed()).map((sandbox) => sandbox.name).sort()).toEqual(["app-one", "wizard-made"]);
    expect(await terminal.screen()).not.toMatch(/^ *app-two /m);
  });

  it("attaches to the selected sandbox on Enter", async () => {
    await pick();
    await terminal.waitFor("Forage sandboxes");
    await terminal.keys("/");
    await terminal.type("wizard");
    await terminal.keys("Enter");
    await terminal.waitFor(/› wizard-made/);
    await terminal.keys("Enter");
    await terminal.waitFor(/\[forage\] 0:helper.*"wizard-made"/, 30_000);
    await detach("wizard-made");
  });

  it("follows the list while it is open: a status that changes, a sandbox made elsewhere, an approval that arrives and is answered", async () => {
    await pick();
    await terminal.waitFor(/app-one +basic +running/);
    // Selected: wizard-made, second; a sandbox made now is listed before it, and must not move the selection.
    await terminal.keys("j");
    await terminal.waitFor(/› wizard-made/);
    expect((await host.run(["up", "app-new", "-t", "basic", "-r", repo])).exitCode).toBe(0);
    expect((await host.run(["stop", "app-one", "-t", "1"])).exitCode).toBe(0);
    const followed = await terminal.waitFor(
      (screen) => /app-one +basic +stopped/.test(screen) && /app-new +basic +running/.test(screen),
      15_000,
    );
    expect(followed).toMatch(/› wizard-made/);
    expect((await host.run(["start", "app-one"])).exitCode).toBe(0);
    await terminal.waitFor(/app-one +basic +running/, 15_000);

    // A request as the network guard would put it (askThroughDaemon on the daemon's root socket).
    const ask = askThroughDaemon({
      log: () => undefined,
      socket: join(host.env.FORAGE_RUN_DIR ?? "", "daemon-root.sock"),
    });
    const answer = ask({ sandbox: "app-one", kind: "host", subject: { name: "pkgs.example.org" }, deadlineMs: 60_000 });
    const screen = await terminal.waitFor(/app-one +basic +running +git-worktree +⚑ 1 waiting/, 15_000);
    expect(screen).toContain("1 request waits for your answer: forage-ctl approvals");
    const id = (JSON.parse((await host.run(["approvals", "--json"])).stdout) as { id: string }[])[0]?.id ?? "";
    expect((await host.run(["deny", id])).exitCode).toBe(0);
    expect(await answer).toEqual({ decision: "deny" });
    await terminal.waitFor((shown) => !shown.includes("⚑") && shown.includes("app-one"), 15_000);
    await terminal.keys("q");
    await terminal.waitFor("[exited 0]");
    expect((await host.run(["down", "app-new"])).exitCode).toBe(0);
  });

  it("quits on q with exit status 0, leaving every sandbox as it was", async () => {
    await pick();
    await terminal.waitFor("Forage sandboxes");
    await terminal.keys("q");
    await terminal.waitFor("[exited 0]");
    expect((await listed()).map((sandbox) => sandbox.name).sort()).toEqual(["app-one", "wizard-made"]);
  });
});
