/** What stands in for a protected path that does not exist: an empty directory, or a file holding `text`. */
export type Placeholder = { kind: "directory" } | { kind: "file"; text: string };

/**
 * A mount made inside a workspace's staged tree before the container gets it (see
 * native/pin-tree.c): what is at `path` (a file, a directory or a symbolic link) bound onto itself,
 * read-only or writable (`link`: it is a symbolic link), or a stand-in bound read-only at `path`
 * (its mount point made already).
 */
export type Pin =
  | { kind: "self"; path: string; readOnly: boolean; link?: true }
  | { kind: "stand-in"; path: string; placeholder: Placeholder };

/** A host path bound into a sandbox at `target`. */
export interface Bind {
  source: string;
  target: string;
  readOnly: boolean;
  /**
   * Set when a user controls `source` (a workspace, a store, a protected path): it is opened
   * without following links, must belong to one of these uids, and what was opened is bound
   * (see stageBinds), never the path looked up again.
   */
  owners?: readonly number[];
  /**
   * Mounts made inside the staged `source` (a directory with `owners`), in order, paths relative
   * to it: the container then gets the whole tree as one recursive bind.
   */
  pins?: readonly Pin[];
}
