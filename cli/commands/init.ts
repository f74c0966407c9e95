import { access, readFile, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { templateName, unixUserName } from "../../generator/config/schema/names.js";
import { agentPresets, type AgentPreset } from "../agent-presets.js";
import { ExitCode } from "../exit-codes.js";
import { packageRoot } from "../../runtime/package-root.js";
import { UserError } from "../user-error.js";


export function registerInit(program: Command): void {
  program
    .command("init")
    .description("Write a commented forage.config.ts to start from")
    .option("-u, --user <name>", "host user whose UID/GID agents get (default: $SUDO_USER or you)")
    .option("-a, --agent <agent>", `first agent: ${Object.keys(agentPresets).join(", ")}`, "claude")
    .option("-t, --template <name>", "name of the first template", "default")
    .option("-o, --out <file>", "file to write", "forage.config.ts")
    .option("-f, --force", "overwrite an existing file")
    .action(async (options: { user?: string; agent: string; template: string; out: string; force?: boolean }) => {
      const text = await renderScaffold(await readFile(join(packageRoot(), "templates/init/forage.config.ts.hbs"), "utf8"), scaffoldValues(options));
      if (options.force !== true && (await exists(options.out))) {
        throw new UserError(`${options.out} already exists; pass --force to overwrite it`, ExitCode.general);
      }
      await writeFile(options.out, text, { mode: 0o644 });
      process.stdout.write(`wrote ${options.out}; next: forage-ctl validate ${options.out} && forage-ctl generate ${options.out}\n`);
    });
}

function scaffoldValues(options: { user?: string; agent: string; template: string }): { user: string; templateName: string; agent: AgentPreset } {
  const agent = agentPresets[options.agent];
  if (agent === undefined) {
    throw new UserError(`--agent: unknown agent "${options.agent}"; choose one of ${Object.keys(agentPresets).join(", ")}`, ExitCode.usage);
  }
  const user = options.user ?? process.env.SUDO_USER ?? userInfo().username;
  // The scaffold is rendered without escaping, so every value is checked against the schema first.
  if (!unixUserName.safeParse(user).success) throw new UserError(`--user: "${user}" is not a valid Unix user name`, ExitCode.usage);
  if (!templateName.safeParse(options.template).success) {
    throw new UserError(`--template: "${options.template}" must be 1-32 characters of a-z, 0-9 and '-', starting with a letter`, ExitCode.usage);
  }
  return { user, templateName: options.template, agent };
}

/** Renders a prose/scaffold template in an isolated Handlebars environment (DESIGN rule 1). */
export async function renderScaffold(source: string, values: object): Promise<string> {
  const { default: Handlebars } = await import("handlebars");
  const handlebars = Handlebars.create();
  return handlebars.compile(source, { strict: true, noEscape: true })(values);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
