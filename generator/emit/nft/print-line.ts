import { NftValidationError } from "./errors.js";

/** The one-line commands a line may join: what the run-time writers send (set elements). */
const oneLineCommand = /^(add element|delete element|flush set) [a-z0-9]+ [A-Za-z][A-Za-z0-9_]* [A-Za-z][A-Za-z0-9_]*( \{ [^\n{}#\\;]* \})?$/;

/**
 * Joins printed one-line commands (`printNftElements`, `printNftFlushSets`) into one line of
 * commands separated by `;`, which `nft -i` reads and commits as one transaction (all of it or
 * nothing). Anything else is refused: a table spans lines, and a `#` or a trailing `\` would
 * change how nft reads the line.
 *
 * @example
 * printNftLine("add element inet forage_f1 allowed4 { 192.0.2.7 }\ndelete element inet forage_f1 allowed4 { 192.0.2.7 }\n");
 * // add element inet forage_f1 allowed4 { 192.0.2.7 }; delete element inet forage_f1 allowed4 { 192.0.2.7 }
 */
export function printNftLine(script: string): string {
  const commands = script.split("\n").filter((command) => command !== "");
  if (commands.length === 0) throw new NftValidationError("script", script, "at least one command");
  commands.forEach((command, index) => {
    if (!oneLineCommand.test(command)) throw new NftValidationError(`script[${index}]`, command, "an add element, delete element or flush set command on one line");
  });
  return commands.join("; ");
}
