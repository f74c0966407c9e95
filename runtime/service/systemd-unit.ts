import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.js";
import { SandboxError } from "../core/errors.js";

/** The unit the project ships (runtime/assets/forage.service): the one source of the service's settings. */
export function shippedUnitPath(): string {
  return join(packageRoot(), "runtime/assets/forage.service");
}

/** What `service install` fills in for this machine. */
export interface UnitFill {
  /** The program and its arguments: node, this checkout's CLI, `daemon`. */
  execStart: readonly string[];
  /** The settings file the daemon serves (absolute). */
  settings: string;
  /** The SSH gateway's account, when the daemon serves one (forage-ctl daemon --gateway-user). */
  gatewayUser?: string;
}

/**
 * The shipped unit with this machine's ExecStart and FORAGE_CONFIG (and FORAGE_GATEWAY_USER when
 * asked): every other line stays as shipped, so a packaged install and this one run alike.
 */
export function renderUnit(shipped: string, fill: UnitFill): string {
  const lines = shipped.split("\n");
  const replace = (prefix: string, line: string): void => {
    const index = lines.findIndex((l) => l.startsWith(prefix));
    if (index < 0) throw new Error(`the shipped unit has no ${prefix} line`);
    lines[index] = line;
  };
  const [program = "", ...args] = fill.execStart;
  replace(
    "ExecStart=",
    `ExecStart=${[quoted(program, "executable"), ...args.map((word) => quoted(word, "argument"))].join(" ")}`,
  );
  const environment = [`Environment=${quoted(`FORAGE_CONFIG=${fill.settings}`, "environment")}`];
  if (fill.gatewayUser !== undefined)
    environment.push(`Environment=${quoted(`FORAGE_GATEWAY_USER=${fill.gatewayUser}`, "environment")}`);
  replace("Environment=FORAGE_CONFIG=", environment.join("\n"));
  return lines.join("\n");
}

/** The shipped unit, read from the package. */
export async function shippedUnit(): Promise<string> {
  return readFile(shippedUnitPath(), "utf8");
}

/** Where a word stands: a command's program, one of its arguments, or an Environment= assignment. */
export type UnitWord = "executable" | "argument" | "environment";

/**
 * One word of a unit line, quoted as systemd reads it (systemd.syntax(7), systemd.service(5)):
 * double quotes with C escapes for `\` and `"`, `%%` for a literal `%` (specifiers), and in a
 * command's arguments `$$` for a literal `$` (variable expansion; a program's own path is not
 * expanded, so it keeps its `$`). Refused, with what to do: a control character, which no unit
 * line can carry, and a quote or backslash in a program's path, which systemd refuses there
 * ("Executable name contains special characters", checked with systemd-analyze verify).
 */
export function quoted(word: string, as: UnitWord): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(word))
    throw new SandboxError(
      `${JSON.stringify(word)} has a control character: a systemd unit cannot carry it (rename or move it)`,
      "usage",
    );
  if (as === "executable" && /["'\\]/.test(word)) {
    throw new SandboxError(
      `systemd refuses a program whose path has a quote or a backslash: ${word} (move it, or link it from a plain path)`,
      "usage",
    );
  }
  let escaped = word.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("%", "%%");
  if (as === "argument") escaped = escaped.replaceAll("$", "$$$$");
  return `"${escaped}"`;
}
