/**
 * Remembers which objects were built as AST nodes by this module (`n.*`, `fromValue`, `nix`).
 *
 * Why: the `nix` tag must decide whether a hole is code or data. Looking at a `kind` field
 * would let a plain data object such as `{ kind: "raw", parts: [...] }` (from a user's config)
 * be spliced as code; an identity set cannot be forged by data.
 */
import type { NixExpr } from "./ast.js";

const built = new WeakSet<object>();

/** Marks `node` as built here and freezes it (and its arrays) so it cannot change afterwards. */
export function markNode<T extends NixExpr>(node: T): T {
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) Object.freeze(value);
  }
  built.add(Object.freeze(node));
  return node;
}

/** True when `value` is a node built by this module. */
export function isMarkedNode(value: unknown): value is NixExpr {
  return typeof value === "object" && value !== null && built.has(value);
}
