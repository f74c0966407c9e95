import { resolve } from "node:path";
import type { Command } from "commander";
import { upSandbox, upSummary } from "../up-sandbox.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import type { Request } from "../../runtime/api/calls.js";
import { templateNameSource } from "../../generator/lib/template-name.js";
import { UserError } from "../../runtime/core/errors.js";
import { networkModeHelp, networkModeOption } from "../network-mode-option.js";

/** `up`: creates and starts a sandbox from a template, with its workspace, keys and runtime. */
export function registerUp(program: Command): void {
  program
    .command("up")
    .description("Create and start a sandbox from a template")
    .argument("<name>", "sandbox name: 1-63 of a-z, 0-9 and '-'")
    .requiredOption("-t, --template <template>", "template to create it from (see forage-ctl templates)")
    .option("-w, --workspace <dir>", "host directory mounted at /workspace as is")
    .option(
      "-r, --repo <repo>",
      "PATH: a jj workspace (if it has .jj) or git worktree on branch forage-NAME (if .git) of the repository at /workspace; NAME=PATH: a repository the template's mounts name (repeatable)",
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option("--direct", "mount the -r repository as is instead (like -w)")
    .option("--git-user <name>", "author name for commits made in the sandbox")
    .option("--git-email <email>", "author e-mail for commits made in the sandbox")
    .option(
      "--ssh-key-path <path>",
      "your SSH private key the agent uses for git over SSH (copied read-only into the sandbox)",
    )
    .option("--no-mux-config", "do not mount your ~/.tmux.conf (read-only) into the sandbox")
    .option("--runtime <runtime>", "runtime to use (see forage-ctl runtime)")
    .option("--network <mode>", networkModeHelp)
    .option(
      "--ssh-agent <key>",
      "serve an SSH agent with this key (a private key file of yours, or SHA256:… of a key in your own agent, which must be reachable here through SSH_AUTH_SOCK), asking before each signature (repeatable)",
      (key: string, keys: string[]) => [...keys, key],
      [] as string[],
    )
    .option(
      "--ssh-key <key>",
      "an SSH public key that may log in (repeatable; added to authorizedKeys)",
      (key: string, keys: string[]) => [...keys, key],
      [] as string[],
    )
    .option("--timings", "print how long each phase of up took (on stderr)")
    .addHelpText(
      "after",
      "\nSettings: --config, else $FORAGE_CONFIG, else ./forage.config.ts, ./forage.yaml or ./forage.json here,\n" +
        "else /etc/forage/forage.json. As root, up loads them itself (a config with errors stops here, exit 6),\n" +
        "then starts the daemon with the same file when none answers, so you can run commands without sudo;\n" +
        "when a daemon already serves that file, root's up runs there (settings read afresh, as here).\n" +
        "Without root, the daemon does the work with the settings it serves.\n" +
        "\nExamples:\n  forage-ctl up myproj -t claude -w ~/src/myproj         # the directory itself\n  forage-ctl up fix-42 -t claude -r ~/src/myproj         # its own jj workspace / git worktree\n  forage-ctl up docs -t writer -r ~/src/site -r data=~/src/data   # plus a named repository\n  forage-ctl exec myproj -- git status",
    )
    .action(
      async (
        name: string,
        options: {
          template: string;
          workspace?: string;
          repo: string[];
          direct?: boolean;
          gitUser?: string;
          gitEmail?: string;
          sshKeyPath?: string;
          sshKey: string[];
          sshAgent: string[];
          muxConfig: boolean;
          runtime?: string;
          network?: string;
          timings?: boolean;
        },
      ) => {
        const sandbox = await upSandbox(program, {
          name,
          template: options.template,
          ...workspaceArgs(options),
          ...dropUndefined({
            gitUser: options.gitUser,
            gitEmail: options.gitEmail,
            sshKeyPath: options.sshKeyPath === undefined ? undefined : resolve(options.sshKeyPath),
            sshKeys: options.sshKey.length === 0 ? undefined : options.sshKey,
            sshAgent:
              options.sshAgent.length === 0
                ? undefined
                : options.sshAgent.map((key) => (key.startsWith("SHA256:") ? key : resolve(key))),
            muxConfig: options.muxConfig ? undefined : false,
            runtime: options.runtime,
            network: networkModeOption(options.network),
            timings: options.timings === true ? true : undefined,
          }),
        });
        process.stdout.write(upSummary(sandbox));
      },
    );
}

/** -w, -r and --direct as up's request fields: paths made absolute, NAME=PATH split off. */
function workspaceArgs(options: {
  workspace?: string;
  repo: string[];
  direct?: boolean;
}): Pick<Request<"up">, "workspace" | "repo" | "direct" | "repos"> {
  const named: Record<string, string> = {};
  const plain: string[] = [];
  for (const value of options.repo) {
    const match = new RegExp(`^(${templateNameSource})=(.+)$`).exec(value);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      if (named[match[1]] !== undefined) throw new UserError(`-r ${match[1]}= is given twice`, "usage");
      named[match[1]] = resolve(match[2]);
    } else plain.push(value);
  }
  if (plain.length > 1)
    throw new UserError(
      `only one default repository: -r ${plain.join(", -r ")} (name the others: -r NAME=PATH)`,
      "usage",
    );
  if (options.direct === true && plain[0] === undefined)
    throw new UserError("--direct needs -r PATH (or use -w DIR)", "usage");
  return dropUndefined({
    workspace: options.workspace === undefined ? undefined : resolve(options.workspace),
    repo: plain[0] === undefined ? undefined : resolve(plain[0]),
    direct: options.direct === true ? true : undefined,
    repos: Object.keys(named).length === 0 ? undefined : named,
  });
}
