/**
 * The names closest to a mistyped `word`, for "did you mean …?": those within a small edit
 * distance (a third of the word, at least 1: `attch` is one letter from `attach`, `frobnicate`
 * is near nothing), the closest first, ties in the order given. A transposition counts as one
 * edit (`sattus` → `status`), as people mistype.
 * @example nearestNames("attch", ["attach", "audit-log", "auth"]) // ["attach"]
 */
export function nearestNames(word: string, names: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(word.length / 3));
  const scored = names.map((name) => ({ name, distance: editDistance(word, name) })).filter((s) => s.distance <= limit);
  const best = Math.min(...scored.map((s) => s.distance));
  return scored.filter((s) => s.distance === best).map((s) => s.name);
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] ?? [])[j] = best;
    }
  }
  return at(a.length, b.length);
}
