import type { z } from "zod";
import type { Identity } from "../config/schema/identity.js";
import type { settingsAgentSchema } from "./settings-agent-schema.js";
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

export interface HostModel {
  user: string;
  authorizedKeys: string[];
  /** Secret name → host file path. Never the secret's contents. */
  secrets: Record<string, string>;
  stateDir: string;
  externalInterface: string | null;
  containerUsername: string;
  workspacePath: string;
  agentIdentity: Identity;
  monitor: { enable: boolean; interval: number; autoRestart: boolean };
  proxy: {
    /** Whether the API proxy runs: exactly when an agent goes by it (auth other than "wrapper"). */
    enable: boolean;
    port: number;
    url: string | null;
    rateLimit: { requests: number; window: string; tokens: number | null };
    /** null: `proxy-audit.jsonl` in the state directory in use (FORAGE_STATE_DIR may move it). */
    auditLog: string | null;
    auditLogMaxBytes: number;
    caFile: string | null;
    /** https origins allowed although they are on loopback, link-local or private addresses. */
    allowUpstreams: string[];
  };
  network: { base: string; upstreamResolver: string | null; admitPrivate: string[] };
  /** The approvals queue: seconds a request waits; the command told of each new one (argv), or null. */
  approvals: { deadline: number; notify: string[] | null };
  stateVersion: string;
  /** Where secrets appear inside every sandbox. */
  secretsMountPath: string;
}

/*
 * A template and its agents are described once, by forage.json's schemas (the resolved form):
 * their types here are inferred from those, differing only where the model holds a value in
 * another form than the file (agents in a sorted list, packages as attribute paths).
 */

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
