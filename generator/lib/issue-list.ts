/** A schema issue as messages show it (zod's shape, typed here: generator/lib imports no library). */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

const shownAtMost = 20;

/**
 * Every issue of a failed parse in one line, each at its path: `limits.tasks: Too big; name:
 * Required` (an issue of the value itself has no path to show). All of them, not the first:
 * whoever fixes the input learns everything that is wrong at once.
 */
export function issueList(issues: readonly IssueLike[]): string {
  if (issues.length === 0) return "invalid";
  // Bounded: a request of thousands of bad entries must not become a message of thousands of lines.
  if (issues.length > shownAtMost)
    return `${issueList(issues.slice(0, shownAtMost))}; and ${issues.length - shownAtMost} more`;
  return issues
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join(".")}: ${issue.message}`))
    .join("; ");
}
