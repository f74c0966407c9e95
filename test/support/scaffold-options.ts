/*
 * The options a config scaffold (`forage-ctl init`'s file) offers commented out, and the config
 * with one of them switched on, so a test can load each alternative the scaffold suggests.
 *
 * An offered option is a comment line `// name: value,`; a trailing `// instead of a and b` (or
 * `a, b`) names the options beside it that it replaces, and switching it on removes those.
 */

export interface OfferedOption {
  /** 0-based line in the scaffold. */
  index: number;
  name: string;
  replaces: string[];
}

const offered = /^(\s*)\/\/ ([a-z][A-Za-z0-9]*): (.*?,)(?:\s*\/\/ instead of ([A-Za-z0-9, ]+))?\s*$/;

/** Every option the scaffold offers commented out. */
export function offeredOptions(text: string): OfferedOption[] {
  return text.split("\n").flatMap((line, index) => {
    const match = offered.exec(line);
    if (match === null) return [];
    const replaces = (match[4] ?? "").split(/,|\band\b/).map((name) => name.trim());
    return [{ index, name: match[2] ?? "", replaces: replaces.filter((name) => name !== "") }];
  });
}

/** The scaffold with `option` uncommented and the options it replaces (at its indentation, in its object) removed. */
export function switchOn(text: string, option: OfferedOption): string {
  const lines = text.split("\n");
  const [, indent = "", name, value] = offered.exec(lines[option.index] ?? "") ?? [];
  lines[option.index] = `${indent}${name}: ${value}`;
  const sameObject = (index: number): boolean =>
    (lines[index] ?? "").startsWith(indent) || (lines[index] ?? "").trim() === "";
  const sibling = new RegExp(`^${indent}(${option.replaces.join("|")}):`);
  const removed = new Set<number>();
  for (const step of option.replaces.length === 0 ? [] : [-1, 1]) {
    for (let index = option.index + step; index >= 0 && index < lines.length && sameObject(index); index += step) {
      if (sibling.test(lines[index] ?? "")) removed.add(index);
    }
  }
  return lines.filter((_, index) => !removed.has(index)).join("\n");
}
