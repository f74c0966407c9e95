import type { Model, TemplateModel } from "../../generator/model/model.js";
import type { PhaseClock } from "./phase-clock.js";
import type { RuntimePaths } from "./paths.js";
import { SandboxError } from "./errors.js";

/** What every lifecycle operation works with: the settings and where state lives. */
export interface RuntimeContext {
  settings: Model;
  paths: RuntimePaths;
  /** Where warnings go (init failures, missing tmux); the CLI prints them on stderr. */
  warn: (message: string) => void;
  /** Set when the caller wants the phases of its operation timed (`up --timings`, benchmarks). */
  clock?: PhaseClock;
}

export function findTemplate(context: RuntimeContext, name: string): TemplateModel {
  const template = context.settings.templates.find((t) => t.name === name);
  if (template === undefined) {
    const known = context.settings.templates.map((t) => t.name).join(", ");
    throw new SandboxError(
      `template "${name}" does not exist in ${context.settings.source} (known: ${known})`,
      "template-not-found",
    );
  }
  return template;
}
