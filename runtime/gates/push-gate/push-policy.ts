/** What the gate knows of one ref update before it would ask. */
export interface UpdateFacts {
  ref: string;
  /** null: a deletion. */
  to: string | null;
  /** What the upstream has now (null: no such branch). */
  from: string | null;
  /** Why the ref name is refused (refNameProblem), or null. */
  nameProblem: string | null;
  /** The pushed object is a commit the gate holds. */
  toIsCommit: boolean;
  /** `from` is an ancestor of `to` (false when `from` is unknown here). */
  fastForward: boolean;
  /** Branches (refs/heads/…) that are never pushed through the gate. */
  protectedRefs: readonly string[];
}

/**
 * Why the update is refused outright, without asking anyone, or null when a human may approve it:
 * a bad name, a deletion, a protected branch, an object that is not a commit, or anything but a
 * fast-forward (a force push). The order puts the cheapest, surest reason first.
 *
 * @example refusal({ ref: "refs/heads/main", protectedRefs: ["refs/heads/main"], ... }) // "main is a protected branch: push to another branch and open a review"
 */
export function refusal(facts: UpdateFacts): string | null {
  if (facts.nameProblem !== null) return facts.nameProblem;
  const branch = facts.ref.slice("refs/heads/".length);
  if (facts.to === null) return `deleting branch ${branch} is not allowed from a sandbox`;
  if (facts.protectedRefs.includes(facts.ref))
    return `${branch} is a protected branch: push to another branch and ask for a review`;
  if (!facts.toIsCommit) return "the pushed object is not a commit";
  if (facts.from !== null && !facts.fastForward)
    return `not a fast-forward of the upstream's ${branch} (a force push, or the upstream moved: fetch and rebase first)`;
  return null;
}

/** Branches protected whatever the upstream's HEAD says, unless the template names its own list. */
export const alwaysProtectedByDefault: readonly string[] = ["refs/heads/main", "refs/heads/master"];

/**
 * The protected branches as full ref names. A template's list is authoritative: exactly those
 * (a repository whose main is meant to take the agent's pushes names what it protects instead).
 * Without one: the upstream's default branch (its HEAD, as it says now) and `main` and `master`
 * both, since a HEAD tells nothing reliable: a fresh bare repository's HEAD names `master` (git's
 * default) while its users push `main`, and an empty one may name none at all.
 *
 * @example protectedRefsOf(null, "refs/heads/trunk") // → ["refs/heads/main", "refs/heads/master", "refs/heads/trunk"]
 * @example protectedRefsOf(["release"], "refs/heads/main") // → ["refs/heads/release"]
 */
export function protectedRefsOf(configured: readonly string[] | null, defaultBranch: string | null): string[] {
  if (configured !== null) return configured.map((name) => (name.startsWith("refs/") ? name : `refs/heads/${name}`));
  return [...new Set([...alwaysProtectedByDefault, ...(defaultBranch === null ? [] : [defaultBranch])])];
}
