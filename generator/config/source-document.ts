/** A parsed config file: its data, and a way back from a config path to a line and column. */
export interface SourceDocument {
  file: string;
  data: unknown;
  /**
   * Position of the node at `path`, or of its nearest existing ancestor. With `atKey`, the
   * position of the last segment's key rather than its value (where a misspelt key is).
   */
  locate(path: readonly (string | number)[], atKey?: boolean): { line: number; column: number } | undefined;
}
