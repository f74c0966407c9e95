import { open, readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { renderProse } from "../../runtime/context/render-prose.js";
import { templateName } from "../../generator/config/schema/names.js";
import { agentPresets, type AgentPreset } from "../agent-presets.js";
import { chooseInitUser, type ChosenUser } from "../init-user.js";
import { nextSteps } from "../init-next-steps.js";
import { giveTo, ranWithSudo, sudoInvoker } from "../init-owner.js";
import { packageRoot } from "../../runtime/core/package-root.js";
import { terminalQuestions } from "../terminal-question.js";
import { UserError } from "../../runtime/core/errors.js";
import { pathExists } from "../../runtime/core/path-exists.js";

interface InitOptions {
  user?: string;
  agent: string;
  template: string;
  out: string;
  force?: boolean;
}

export function registerInit(program: Command): void {
  program
    .command("init")
    .description("Write a commented forage.config.ts to start from")
    .option(
      "-u, --user <name>",
      "host user who owns your workspaces; agents get its UID/GID (default: $SUDO_USER, else you, else your login session's user, never root; asked on a terminal)",
    )
    .option("-a, --agent <agent>", `agent of the second template: ${Object.keys(agentPresets).join(", ")}`, "claude")
    .option(
      "-t, --template <name>",
      "name of the first template (a shell with no network that runs on any host)",
      "default",
    )
    .option("-o, --out <file>", "file to write", "forage.config.ts")
    .option("-f, --force", "overwrite an existing file")
    .addHelpText(
      "after",
      "\nThe config has two templates: the first runs on any Linux host as it is (the host's bash, no\nnetwork, no secrets); the second runs the agent and needs its program on the host (or NixOS) and\nits key (or a subscription login: the comment above its key says how). Run with sudo, the file is\nyours ($SUDO_USER) and the steps it prints say sudo where you need it. Without --user and with\nnone of the defaults (run as root with no sudo and no login session), init asks on a terminal, or\nexits 64 when there is none.\n\nExample:\n  sudo forage-ctl init && sudo forage-ctl up demo -t default -w ~/src/demo",
    )
    .action(async (options: InitOptions) => {
      const agent = presetOf(options);
      if (options.force !== true && (await pathExists(options.out))) {
        throw new UserError(`${options.out} already exists; pass --force to overwrite it`, "general");
      }
      const terminal = terminalQuestions();
      const self = userInfo();
      const user = await chooseInitUser({
        option: options.user,
        env: process.env,
        self: { uid: self.uid, username: self.username },
        ask: terminal?.ask,
      }).finally(() => terminal?.close());
      const source = await readFile(join(packageRoot(), "templates/init/forage.config.ts.hbs"), "utf8");
      const text = await renderProse(source, { user: user.name, templateName: options.template, agent });
      const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
      // Under sudo the config is the invoking user's to edit, not root's.
      const owner = await sudoInvoker(process.env, isRoot);
      const handle = await open(options.out, options.force === true ? "w" : "wx", 0o644);
      await handle
        .writeFile(text)
        .then(() => giveTo(handle, owner))
        .finally(() => handle.close());
      process.stdout.write(
        `wrote ${options.out} (user "${user.name}", from ${user.from})\n${steps(options, user, agent, ranWithSudo(process.env, isRoot) || !isRoot)}`,
      );
    });
}

function presetOf(options: InitOptions): AgentPreset {
  const agent = agentPresets[options.agent];
  if (agent === undefined) {
    throw new UserError(
      `--agent: unknown agent "${options.agent}"; choose one of ${Object.keys(agentPresets).join(", ")}`,
      "usage",
    );
  }
  // Checked against the schema before rendering: the scaffold is rendered without escaping.
  if (!templateName.safeParse(options.template).success) {
    throw new UserError(
      `--template: "${options.template}" must be 1-32 characters of a-z, 0-9 and '-', starting with a letter`,
      "usage",
    );
  }
  if (options.template === agent.name) {
    throw new UserError(
      `--template: "${options.template}" is the name of the ${agent.title} template; choose another name for the first template`,
      "usage",
    );
  }
  return agent;
}

/** `withSudo`: the person types in a shell of their own (they ran init as themselves, or with sudo), not root's. */
function steps(options: InitOptions, user: ChosenUser, agent: AgentPreset, withSudo: boolean): string {
  // Sandbox commands find ./forage.config.ts by themselves; any other file must be named.
  const found = resolve(options.out) === resolve("forage.config.ts");
  return nextSteps({
    config: found ? undefined : options.out,
    user: user.name,
    template: options.template,
    agent,
    withSudo,
  });
}
