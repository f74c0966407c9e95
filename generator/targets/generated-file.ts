import type { Model } from "../model/model.js";

/** One file a target produces: a path relative to the output directory, and its full text. */
export interface GeneratedFile {
  path: string;
  contents: string;
}

/** A target is a pure function of the model. */
export type Target = (model: Model) => GeneratedFile[];
