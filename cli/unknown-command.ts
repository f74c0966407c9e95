import type { Command } from "commander";
import { nearestNames } from "./nearest-names.js";

/**
 * The first word of `args` that names no command where a command is expected, or undefined.
 * Walks the command tree the way commander dispatches (`snapshot create …`): at each level the
 * first operand must be one of that command's subcommands (or `help` at the top). Commander
 * itself shows help for `forage-ctl nosuch --help` and exits 0; an unknown command is a usage
 * error wherever it appears, help or not. `nearest` are the commands of that level it may have
 * meant (see nearestNames), for the message to offer.
 * @example unknownCommand(program, ["attch", "demo"]) // { word: "attch", nearest: ["attach"] }; (["snapshot", "creat"]) // { word: "creat", nearest: ["snapshot create"] }
 */
export function unknownCommand(
  program: Command,
  args: readonly string[],
): { word: string; nearest: string[] } | undefined {
  let command = program;
  let rest = args;
  // The command words walked so far: a suggestion is typed whole (`snapshot create`).
  let prefix = "";
  for (;;) {
    if (command.commands.length === 0) return undefined;
    const found = firstOperand(command, rest);
    if (found === undefined) return undefined;
    const next = command.commands.find((c) => c.name() === found.word || c.aliases().includes(found.word));
    if (next === undefined)
      return command === program && found.word === "help"
        ? undefined
        : {
            word: found.word,
            nearest: nearestNames(
              found.word,
              command.commands.map((c) => c.name()),
            ).map((name) => prefix + name),
          };
    command = next;
    prefix += `${next.name()} `;
    rest = rest.slice(found.index + 1);
  }
}

/** The first argument that is not an option, skipping the values of options that take one. */
function firstOperand(command: Command, args: readonly string[]): { word: string; index: number } | undefined {
  const takesValue = new Set(
    command.options
      .filter((o) => o.required || o.optional)
      .flatMap((o) => [o.short, o.long].filter((n): n is string => n !== undefined)),
  );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") return undefined;
    if (takesValue.has(arg)) i++;
    else if (!arg.startsWith("-")) return { word: arg, index: i };
  }
  return undefined;
}
