import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { configErrorOf, tempConfigDir, type TempConfigDir } from "./temp-config.js";

let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(async () => {
  await temp.cleanup();
});

/*
 * The audit of the reference's option names (reference/forage.md: NixOS module options, and the
 * CLI-only ones) as a test: a config using every one of them loads, and only the two spellings
 * that differ from Forage's give notes, with the useProxy of a template that has no agent to
 * proxy and authorizedKeys where no template runs sshd (notes, not refusals, so the reference's
 * configs load: every reference sandbox ran sshd). `enable` is the one reference
 * option with no place in a config: the generated module sets services.forage.enable itself.
 */
const everyReferenceName = [
  "user: alice",
  'authorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB alice@laptop"]',
  "secrets: { anthropic: /run/secrets/anthropic }",
  "stateDir: /var/lib/forage",
  "externalInterface: eth0",
  "containerUsername: agent",
  "workspacePath: /workspace",
  "agentIdentity: { gitUser: Agent, gitEmail: agent@example.org, sshKeyPath: /run/secrets/agent-key }",
  "monitor: { enable: true, interval: 60, autoRestart: true }",
  "proxyUrl: http://proxy.example.org:8080",
  'stateVersion: "25.05"',
  "templates:",
  "  claude:",
  "    description: Every reference option",
  "    agents:",
  "      claude:",
  "        package: claude-code",
  "        secretName: anthropic",
  "        authEnvVar: ANTHROPIC_API_KEY",
  "        hostConfigDir: ~/.claude",
  "        containerConfigDir: /home/agent/.claude",
  "        hostConfigDirReadOnly: true",
  '        permissions: { skipAll: false, allow: ["Bash(npm test:*)"], deny: ["Bash(curl:*)"] }',
  "    extraPackages: [ripgrep]",
  "    network: restricted",
  "    allowedHosts: [api.example.org]",
  "    readOnlyWorkspace: false",
  '    resourceLimits: { cpuQuota: "200%", memoryMax: 4G, tasksMax: 512 }',
  "    initCommands: [npm install]",
  "    agentIdentity: { gitUser: Claude, gitEmail: claude@example.org, sshKeyPath: /run/secrets/claude-key }",
  "    workspace:",
  "      mounts:",
  "        docs: { containerPath: /workspace/docs, hostPath: /srv/docs, readOnly: true }",
  "        lib: { containerPath: /workspace/lib, repo: /srv/lib, mode: git-worktree, branch: main }",
  "      useBeads: { enable: true, branch: beads-sync, package: beads, containerPath: /workspace/.beads, repo: /srv/lib }",
  "    multiplexer: tmux",
  "    tmuxWindows: [{ name: agent, command: claude }]",
  "  proxied:",
  "    useProxy: true",
  "",
].join("\n");

describe("a config using every option name of the reference", () => {
  it("loads, with notes for proxyUrl and allowedHosts, a useProxy with nothing to proxy and authorizedKeys with no sshd", async () => {
    await temp.write("forage.yaml", everyReferenceName);
    const loaded = await loadConfig("forage.yaml", temp.dir);
    expect(loaded.notes.map((note) => note.path.join("."))).toEqual([
      "authorizedKeys",
      "proxyUrl",
      "templates.claude.allowedHosts",
      "templates.proxied.useProxy",
    ]);
  });

  it("refuses the module's `enable`, which a config has no use for", async () => {
    await temp.write("forage.yaml", `enable: true\n${everyReferenceName}`);
    expect((await configErrorOf("forage.yaml", temp.dir)).message).toBe(
      'forage.yaml:1:1: enable: unknown option "enable" (check its spelling and the schema: forage-ctl schema)',
    );
  });
});
