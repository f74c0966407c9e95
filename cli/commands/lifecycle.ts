import { resolve } from "node:path";
import type { Command } from "commander";
import { operationsOf } from "../operations.js";
import { upSandbox, upSummary } from "../up-sandbox.js";
import { confirmDownAll, refuseUnaskedDownAll } from "../down-all.js";
import { UserError } from "../../runtime/core/errors.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import type { Request } from "../../runtime/api/calls.js";
import { templateNameSource } from "../../generator/lib/template-name.js";
import { callersAgentSocket } from "../callers-agent-socket.js";

/** up, down, start, stop, reset: creating, running and removing sandboxes. */
export function registerLifecycle(program: Command): void {
  // Root's commands go to a daemon serving the same settings and build when one runs (operations.ts).
  const operations = () => operationsOf(program, { preferDaemon: true });
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
    .option("--ssh-key-path <path>", "your SSH private key the agent uses for git over SSH (copied read-only into the sandbox)")
    .option("--no-mux-config", "do not mount your ~/.tmux.conf (read-only) into the sandbox")
    .option("--runtime <runtime>", "runtime to use (see forage-ctl runtime)")
    .option(
      "--ssh-agent <key>",
      "serve an SSH agent with this key (a private key file of yours, or SHA256:… of a key in your own agent, which must be reachable here through SSH_AUTH_SOCK), asking before each signature (repeatable)",
      (key: string, keys: string[]) => [...keys, key],
      [] as string[],
    )
    .option("--ssh-key <key>", "an SSH public key that may log in (repeatable; added to authorizedKeys)", (key: string, keys: string[]) => [...keys, key], [] as string[])
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
            sshAgent: options.sshAgent.length === 0 ? undefined : options.sshAgent.map((key) => (key.startsWith("SHA256:") ? key : resolve(key))),
            muxConfig: options.muxConfig ? undefined : false,
            runtime: options.runtime,
            timings: options.timings === true ? true : undefined,
          }),
        });
        process.stdout.write(upSummary(sandbox));
      },
    );

  program
    .command("down")
    .description("Stop and remove a sandbox (its direct workspace is kept)")
    .argument("[name]", "sandbox to remove")
    .option("--all", "remove every sandbox: lists them and asks first on a terminal")
    .option("-y, --yes", "with --all: remove without asking (scripts; without a terminal --all needs it)")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .addHelpText("after", "\nExamples:\n  forage-ctl down demo\n  forage-ctl down --all          # lists every sandbox, then asks\n  forage-ctl down --all --yes    # in scripts: no question")
    .action(async (name: string | undefined, options: { all?: boolean; yes?: boolean; timeout: string }) => {
      if ((name === undefined) === (options.all !== true)) throw new UserError("give a sandbox name or --all", "usage");
      if (options.yes === true && options.all !== true) throw new UserError("--yes goes with --all (down NAME does not ask)", "usage");
      if (options.all === true) refuseUnaskedDownAll(options.yes === true);
      const ops = await operations();
      const all = options.all === true ? await ops.list({}) : [];
      if (options.all === true && all.length === 0) return void process.stdout.write("no sandboxes to remove\n");
      if (options.all === true && !(await confirmDownAll(all, options.yes === true))) return void process.stdout.write("nothing removed\n");
      const names = options.all === true ? all.map((s) => s.name) : [name ?? ""];
      for (const each of names) {
        await ops.down({ name: each, grace: seconds(options.timeout) });
        process.stdout.write(`removed ${each}\n`);
      }
    });

  program
    .command("start")
    .description("Start a stopped sandbox on a fresh root")
    .argument("<name>")
    .action(async (name: string) => {
      await (await operations()).start(dropUndefined({ name, sshAuthSock: callersAgentSocket() }));
      process.stdout.write(`started ${name}\n`);
    });

  program
    .command("stop")
    .description("Stop a sandbox, keeping it (and its workspace) for a later start")
    .argument("<name>")
    .option("-t, --timeout <seconds>", "grace period before processes are killed", "10")
    .action(async (name: string, options: { timeout: string }) => {
      await (await operations()).stop({ name, grace: seconds(options.timeout) });
      process.stdout.write(`stopped ${name}\n`);
    });

  program
    .command("reset")
    .description("Recreate a sandbox from its template: root wiped, workspace and metadata kept, secrets re-copied, init re-run")
    .argument("<name>")
    .action(async (name: string) => {
      await (await operations()).reset(dropUndefined({ name, sshAuthSock: callersAgentSocket() }));
      process.stdout.write(`reset ${name}\n`);
    });
}

function seconds(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > 3600) throw new UserError(`--timeout: "${text}" is not a whole number of seconds (0-3600)`, "usage");
  return value;
}

/** -w, -r and --direct as up's request fields: paths made absolute, NAME=PATH split off. */
function workspaceArgs(options: { workspace?: string; repo: string[]; direct?: boolean }): Pick<Request<"up">, "workspace" | "repo" | "direct" | "repos"> {
  const named: Record<string, string> = {};
  const plain: string[] = [];
  for (const value of options.repo) {
    const match = new RegExp(`^(${templateNameSource})=(.+)$`).exec(value);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      if (named[match[1]] !== undefined) throw new UserError(`-r ${match[1]}= is given twice`, "usage");
      named[match[1]] = resolve(match[2]);
    } else plain.push(value);
  }
  if (plain.length > 1) throw new UserError(`only one default repository: -r ${plain.join(", -r ")} (name the others: -r NAME=PATH)`, "usage");
  if (options.direct === true && plain[0] === undefined) throw new UserError("--direct needs -r PATH (or use -w DIR)", "usage");
  return dropUndefined({
    workspace: options.workspace === undefined ? undefined : resolve(options.workspace),
    repo: plain[0] === undefined ? undefined : resolve(plain[0]),
    direct: options.direct === true ? true : undefined,
    repos: Object.keys(named).length === 0 ? undefined : named,
  });
}
