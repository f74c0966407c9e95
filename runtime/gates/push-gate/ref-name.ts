import { runUserGit, type GateUser } from "./user-git.js";

/** Longer ref names are refused before git is asked. */
const maxRefLength = 255;

/**
 * Why a pushed ref name is refused, or null: only branches (refs/heads/…) are pushed through the
 * gate, their names as `git check-ref-format` accepts them, printable ASCII only (the name is shown
 * to a human in a terminal) and not starting with "-" in any part.
 */
export async function refNameProblem(ref: string, user: GateUser): Promise<string | null> {
  if (ref.length > maxRefLength) return `a ref name longer than ${maxRefLength} characters`;
  if (!/^[\x21-\x7e]+$/.test(ref)) return "a ref name with control, space or non-ASCII characters";
  if (!ref.startsWith("refs/heads/")) return "only branches (refs/heads/...) are pushed through the gate";
  if (ref.split("/").some((part) => part.startsWith("-"))) return "a ref name with a part starting with '-'";
  // No "--" (check-ref-format takes none): the name starts with "refs/heads/", so it is no option.
  // As the user, as every git of the gate's: on NixOS git may be only in their profile.
  const checked = await runUserGit(user, ["check-ref-format", ref], {}, 10_000);
  return checked.exitCode === 0 ? null : "not a valid ref name (git check-ref-format)";
}
