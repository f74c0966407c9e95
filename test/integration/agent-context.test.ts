import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * What agents are told about their sandbox, in real sandboxes: the rendered prompt and skills,
 * read-only at /run/forage/context and linked where each program reads them, and Claude's
 * wrapper passing the prompt with --append-system-prompt (the agents are echo and true, standing
 * in for the programs: the context's readers come from the package names).
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux", "git");

const templates = `  told:
    network: { mode: restricted, allow: ["packages.example.org", "*.example.org:443"] }
    agentIdentity: { gitUser: "Agent Smith", gitEmail: "agent@example.org" }
    agents:
      claude: { package: claude-code, executable: echo }
      codex: { package: codex, executable: "true" }
    context:
      fragments: ["Run the tests with \`make check\` before you commit."]
      skills:
        deploy: { description: "How to deploy: never from a sandbox", body: "Deployments are the user's job." }
  silent:
    network: none
    agents:
      claude: { package: claude-code, executable: echo }
    context: { enable: false }
`;

describe.skipIf(!tools.run || !isRoot())("agent context", () => {
  let host: TestHost;
  let repo: string;

  beforeAll(async () => {
    host = new TestHost("10.213", "nobody", templates);
    // The worktree is made as the repository's owner, who must reach it.
    chmodSync(host.dir, 0o711);
    repo = host.workspace("repo");
    const git = (...args: string[]): void =>
      void execFileSync("git", ["-c", "safe.directory=*", "-C", repo, ...args], { stdio: "ignore" });
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "flake.nix"), "{ outputs = _: { }; }\n");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
    execFileSync("chown", ["-R", "65534:65534", repo]);
    for (const [name, args] of [
      ["ctx", ["-t", "told", "-r", repo]],
      ["quiet", ["-t", "silent", "-w", host.workspace("quiet")]],
    ] as const) {
      const up = await host.run(["up", name, ...args]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await host?.cleanup();
  });

  it("tells the agent its sandbox, workspace, network, identity and the template's own fragment", async () => {
    const prompt = await host.sh("ctx", "cat /run/forage/context/system-prompt.md");
    expect(prompt).toContain("sandbox **ctx**, made from template **told**");
    expect(prompt).toMatch(/git worktree of the user's repository on branch `forage-ctx`/);
    expect(prompt).toContain("- `packages.example.org`\n- `*.example.org:443`");
    expect(prompt).toContain("/run/forage/network/denials.jsonl");
    expect(prompt).toContain("authored as Agent Smith <agent@example.org>");
    expect(prompt).toContain("Run the tests with `make check` before you commit.");
  });

  it("gives every process the commit identity from the agent's own git and jj configuration, not only forage-ctl's environment", async () => {
    // `git config` reads files only: GIT_AUTHOR_NAME, which exec also sets, does not answer it.
    expect(await host.sh("ctx", "git config --global user.name; git config --global user.email")).toBe(
      "Agent Smith\nagent@example.org\n",
    );
    expect(await host.sh("ctx", "cat ~/.config/jj/config.toml")).toBe(
      '[user]\nname = "Agent Smith"\nemail = "agent@example.org"\n',
    );
  });

  it("passes the prompt to Claude with --append-system-prompt, through its wrapper", async () => {
    const echoed = await host.sh("ctx", "/opt/forage/bin/claude hello");
    expect(echoed.startsWith("--append-system-prompt # You are working in a Forage sandbox")).toBe(true);
    expect(echoed.trimEnd().endsWith("hello")).toBe(true);
  });

  it("gives Claude the skills that fit the sandbox, and Codex the same context as AGENTS.md", async () => {
    const skills = await host.sh("ctx", "ls ~/.claude/skills/");
    expect(skills.split("\n").filter(Boolean)).toEqual([
      "deploy",
      "forage-commits",
      "forage-git-worktree",
      "forage-nix",
    ]);
    expect(await host.sh("ctx", "cat ~/.claude/skills/deploy/SKILL.md")).toBe(
      '---\nname: deploy\ndescription: "How to deploy: never from a sandbox"\n---\n\nDeployments are the user\'s job.\n',
    );
    const agentsMd = await host.sh("ctx", "cat ~/.codex/AGENTS.md");
    expect(agentsMd).toContain("# You are working in a Forage sandbox");
    expect(agentsMd).toContain("## Skill: forage-git-worktree");
    expect(agentsMd).toContain("Deployments are the user's job.");
  });

  it("keeps the context read-only to the agent, and to root inside", async () => {
    const agent = await host.run([
      "exec",
      "ctx",
      "--",
      "sh",
      "-c",
      "echo tampered > /run/forage/context/system-prompt.md",
    ]);
    expect(agent.exitCode).not.toBe(0);
    const root = await host.run([
      "shell",
      "ctx",
      "--",
      "sh",
      "-c",
      "echo tampered > /run/forage/context/system-prompt.md",
    ]);
    expect(root.exitCode).not.toBe(0);
    expect(await host.sh("ctx", "head -c 33 /run/forage/context/system-prompt.md")).toBe(
      "# You are working in a Forage san",
    );
  });

  it("gives nothing, and no prompt flag, when the template turns the context off", async () => {
    expect((await host.run(["exec", "quiet", "--", "test", "-e", "/run/forage/context"])).exitCode).toBe(1);
    expect(await host.sh("quiet", "/opt/forage/bin/claude hello")).toBe("hello\n");
  });

  it("renders the context again at each start, with the network policy then in force", async () => {
    expect((await host.run(["network", "ctx", "none"])).exitCode).toBe(0);
    expect((await host.run(["stop", "ctx"])).exitCode).toBe(0);
    expect((await host.run(["start", "ctx"])).exitCode).toBe(0);
    expect(await host.sh("ctx", "cat /run/forage/context/system-prompt.md")).toContain("Nothing leaves this sandbox");
  });

  // Issue 27: after `forage-ctl network NAME restricted` the prompt still said nothing leaves.
  it("renders the context again when the network changes while the sandbox runs", async () => {
    const prompt = (): Promise<string> => host.sh("ctx", "cat /run/forage/context/system-prompt.md");
    expect((await host.run(["network", "ctx", "none"])).exitCode).toBe(0);
    expect(await prompt()).toContain("Nothing leaves this sandbox");
    expect((await host.run(["network", "ctx", "restricted"])).exitCode).toBe(0);
    const restricted = await prompt();
    expect(restricted).not.toContain("Nothing leaves this sandbox");
    expect(restricted).toContain("- `packages.example.org`\n- `*.example.org:443`");
  });
});
