import type { Model, TemplateModel } from "../../generator/model/model.js";
import type { PhaseClock } from "../core/phase-clock.js";
import type { RuntimePaths } from "../paths.js";
import { readMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
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
    throw new SandboxError(`template "${name}" does not exist in ${context.settings.source} (known: ${known})`, "template-not-found");
  }
  return template;
}

export async function requireSandbox(context: RuntimeContext, name: string): Promise<SandboxMetadata> {
  const metadata = await readMetadata(context.paths, name);
  if (metadata === undefined) throw new SandboxError(`sandbox "${name}" does not exist (see forage-ctl ps)`, "not-found");
  return metadata;
}
