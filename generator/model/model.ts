import type { z } from "zod";
import type { settingsAgentSchema } from "./settings-agent-schema.js";
import type { settingsHostSchema } from "./settings-host-schema.js";
import type { settingsTemplateSchema } from "./settings-template-schema.js";

/**
 * The resolved model: every default applied, every `extends` flattened, every derived name
 * computed. Plain data only, so targets are pure functions of it.
 */
export interface Model {
  /** Display path of the config it came from, quoted in generated headers. */
  source: string;
  host: HostModel;
  /** Sorted by name. */
  templates: TemplateModel[];
}

/*
 * The host, a template and its agents are described once, by forage.json's schemas (the resolved form):
 * their types here are inferred from those, differing only where the model holds a value in
 * another form than the file (agents in a sorted list, packages as attribute paths).
 */

/** The host's settings resolved: every default applied, null where there is none (see settings-host-schema.ts). */
export type HostModel = z.output<typeof settingsHostSchema>;

/** A template resolved: every default applied, `extends` flattened (see settings-template-schema.ts). */
export type TemplateModel = Omit<z.output<typeof settingsTemplateSchema>, "agents" | "extraPackages"> & {
  /** Sorted by name. */
  agents: AgentModel[];
  /** Attribute paths, e.g. ["python3Packages", "black"]; de-duplicated, in first-seen order. */
  extraPackages: string[][];
};

/** An agent resolved (see settings-agent-schema.ts): skipAll expanded, its API as the proxy serves it. */
export type AgentModel = Omit<z.output<typeof settingsAgentSchema>, "package"> & {
  /** Attribute path in nixpkgs, e.g. ["python3Packages", "black"]. */
  package: string[];
};

export type NetworkMode = TemplateModel["network"]["mode"];
export type { AllowRule } from "./allow-rule.js";
export type MountModel = TemplateModel["mounts"][number];
export type ProxyFilterModel = TemplateModel["proxyFilter"];
export type ContextModel = TemplateModel["context"];
export type LoginModel = NonNullable<AgentModel["login"]>;
export type AgentApiModel = NonNullable<AgentModel["api"]>;
