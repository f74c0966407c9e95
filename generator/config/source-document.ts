/** A parsed config file: its data, and a way back from a config path to a line and column. */
export interface SourceDocument {
  file: string;
  data: unknown;
  /** Position of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly (string | number)[]): { line: number; column: number } | undefined;
}
