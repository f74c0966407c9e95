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
  /** Bind a new root-owned empty directory, or file with `text`, read-only instead of `source`. */
  placeholder?: { kind: "directory" } | { kind: "file"; text: string };
}
