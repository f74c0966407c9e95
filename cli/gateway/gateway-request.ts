import { UserError } from "../../runtime/core/errors.js";
import { sandboxNamePattern } from "../../runtime/core/names.js";

/** What one gateway session does: open the picker, or attach to one sandbox. */
export type GatewayRequest = { kind: "pick" } | { kind: "attach"; name: string };

/** How much of a refused command the message shows: enough to recognise it, never a flood. */
const shownLimit = 60;

/**
 * The session a gateway login asked for. `original` is SSH_ORIGINAL_COMMAND: what the client sent
 * (`ssh forage@host NAME`), set by sshd only under a ForceCommand. It is untrusted input, never run
 * or split by a shell: it must be empty (the picker) or exactly one sandbox name. Anything else (a
 * second word, shell syntax, `scp -t`, `rsync --server`, an sftp-server path) is refused.
 * `argument` is the name on forage-ctl's own command line (the administrator's ForceCommand, or a
 * local `forage-ctl gateway NAME`); the client may then only repeat it or send nothing.
 *
 * @example gatewayRequest("myproj", undefined) // { kind: "attach", name: "myproj" }
 */
export function gatewayRequest(original: string | undefined, argument: string | undefined): GatewayRequest {
  if (argument !== undefined && !sandboxNamePattern.test(argument)) throw refused(argument, "is not a sandbox name");
  if (original === undefined || original === "")
    return argument === undefined ? { kind: "pick" } : { kind: "attach", name: argument };
  if (!sandboxNamePattern.test(original)) {
    const why = /\s/.test(original.trim())
      ? "has more than one word: send one sandbox name, or nothing for the picker"
      : "is not a sandbox name";
    throw refused(original, why);
  }
  if (argument !== undefined && original !== argument)
    throw refused(original, `is not ${argument}, the only sandbox this login may attach to`);
  return { kind: "attach", name: original };
}

function refused(command: string, why: string): UserError {
  return new UserError(
    `gateway: refused the command ${shownCommand(command)}: it ${why}. This login only attaches to sandboxes: ssh -t USER@HOST NAME (a-z, 0-9, '-'), or ssh -t USER@HOST for the picker`,
    "usage",
  );
}

/**
 * A refused command as the message shows it: quoted, cut at 60 characters, and with every
 * character outside printable ASCII written as an escape, so a hostile command cannot send
 * terminal control sequences (or a fake second line) through the error message.
 *
 * @example shownCommand("a\u001b[2Jb") // "\"a\\x1b[2Jb\""
 */
export function shownCommand(command: string): string {
  const cut = [...command].slice(0, shownLimit);
  const escaped = cut
    .map((char) => (/^[\x20-\x7e]$/.test(char) && char !== '"' && char !== "\\" ? char : escapeChar(char)))
    .join("");
  return `"${escaped}"${[...command].length > shownLimit ? "…" : ""}`;
}

function escapeChar(char: string): string {
  if (char === '"' || char === "\\") return `\\${char}`;
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}
