import type { z } from "zod";

/** A schema problem reduced to what a user needs: where, and what to do. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
  /** Locate the key of the last path segment, not its value (unknown keys). */
  atKey?: boolean;
}

/**
 * Flattens zod issues into one problem per location. Unknown keys are reported at the key itself
 * (so the position points at the typo); a union reports the branch that fits the input's shape
 * instead of zod's generic "Invalid input".
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  base: (string | number)[] = [],
): SchemaProblem[] {
  return issues.flatMap((issue) => problemsFromIssue(issue, base));
}

function problemsFromIssue(issue: z.core.$ZodIssue, base: (string | number)[]): SchemaProblem[] {
  const path = [...base, ...issue.path.map(pathPart)];
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: [...path, key],
        message: `unknown option "${key}" (check its spelling and the schema: forage-ctl schema)`,
        atKey: true,
      }));
    case "invalid_union":
      return problemsFromUnion(issue.errors, path);
    case "invalid_key":
      // A record key that breaks its rule: say the rule ("Invalid key in record" alone says nothing).
      return issue.issues.map((nested) => ({
        path,
        message: `the name "${String(path.at(-1))}" ${messageOf(nested)}`,
        atKey: true,
      }));
    case "custom":
      // A refinement may ask for the key (`params: { atKey: true }`) when the fix is to remove or move it.
      return [{ path, message: messageOf(issue), ...(issue.params?.atKey === true ? { atKey: true } : {}) }];
    default:
      return [{ path, message: messageOf(issue) }];
  }
}

function problemsFromUnion(
  branches: readonly (readonly z.core.$ZodIssue[])[],
  path: (string | number)[],
): SchemaProblem[] {
  // A branch whose only complaint is a type mismatch at the union itself is the wrong shape for
  // this input; the remaining branches explain what is actually wrong.
  const fitting = branches.filter(
    (issues) => !issues.every((i) => i.path.length === 0 && (i.code === "invalid_type" || i.code === "invalid_value")),
  );
  if (fitting.length > 0) return problemsFromIssues(fitting[0] ?? [], path);
  const expected = branches.flatMap((issues) => issues.map((i) => describeExpected(i))).filter((s) => s !== "");
  return [{ path, message: `must be ${[...new Set(expected)].join(" or ")}` }];
}

function describeExpected(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value") return issue.values.map((v) => JSON.stringify(v)).join(", ");
  if (issue.code === "invalid_type") return `a${/^[aeiou]/.test(issue.expected) ? "n" : ""} ${issue.expected}`;
  return "";
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message))
    return `is required (expected ${issue.expected})`;
  // zod's own wording is replaced; a schema's own message (the reason a value is refused) is kept.
  if (issue.code === "invalid_value" && /^Invalid (option|input)\b/.test(issue.message))
    return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  return issue.message.replace(/^Invalid input: /, "");
}

function pathPart(part: PropertyKey): string | number {
  return typeof part === "number" ? part : String(part);
}
