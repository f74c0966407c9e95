import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TemplateModel } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { UserError } from "../../generator/lib/user-error.js";
import { expandHome } from "../core/host-user.js";
import { packageRoot } from "../core/package-root.js";
import type { McpServerLauncher } from "../gates/mcp-gate/mcp-gate-service.js";
import { serverEnvDir, serverEnvDirInside } from "../provision/mcp-server-secrets.js";
import { sandboxSecretsPath } from "../core/paths.js";
import { listMetadata, readMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { WorkspaceRequest } from "../workspaces/create-workspaces.js";
import { execCommand } from "./exec.js";

/** What makes a stdio server's sandbox: the agent's sandbox it serves, and the secrets it gets as its environment. */
export interface McpServerOrigin {
  of: NonNullable<SandboxMetadata["mcpServerOf"]>;
  env: Readonly<Record<string, string>>;
}

/** What `up` is asked to make a server's sandbox (a part of up.ts's UpRequest, passed in to keep the modules apart). */
export interface ServerSandboxRequest {
  name: string;
  template: string;
  workspace: WorkspaceRequest;
  identity: Record<string, never>;
  muxConfig: false;
  mcpServer: McpServerOrigin;
}

/**
 * A stdio server's sandbox's name: the agent's sandbox's, "--", the server's (`dev--github`), so
 * `ps` shows whose it is. Refused when it would be longer than a sandbox name may be.
 */
export function serverSandboxName(agent: string, server: string): string {
  const name = `${agent}--${server}`;
  if (name.length > 63)
    throw new SandboxError(
      `sandbox "${agent}" cannot have MCP server ${server}'s sandbox beside it: "${name}" is over 63 characters; use a shorter sandbox name`,
      "usage",
    );
  return name;
}

/**
 * Makes a sandbox for each stdio server of the agent's sandbox's template, from the server's
 * `template`, with its `workspace` (or an empty directory of its own) and its `env` secrets
 * (nowhere else): `up` (passed in) does each, whole or not at all. The caller undoes the agent's
 * sandbox when one fails, and with it those made (removeSandbox, down.ts).
 */
export async function makeServerSandboxes(
  agent: SandboxMetadata,
  template: TemplateModel,
  home: string,
  up: (request: ServerSandboxRequest) => Promise<SandboxMetadata>,
  progress?: (step: string) => void,
): Promise<void> {
  for (const server of template.mcp.servers) {
    const serverTemplate = server.template;
    if (server.command === null || serverTemplate === null) continue;
    progress?.(`starting the sandbox of MCP server ${server.name}`);
    await up({
      name: serverSandboxName(agent.name, server.name),
      template: serverTemplate,
      workspace: server.workspace === null ? { empty: true } : { directory: expandHome(server.workspace, home) },
      identity: {},
      muxConfig: false,
      mcpServer: { of: { sandbox: agent.name, createdAt: agent.createdAt, server: server.name }, env: server.env },
    }).catch((error: unknown) => {
      // Said as the server's: the user asked for the agent's sandbox, and this step is one they did not type.
      const why = error instanceof Error ? error.message : String(error);
      throw new SandboxError(
        `MCP server ${server.name}'s sandbox (from template ${serverTemplate}): ${why}`,
        error instanceof UserError ? error.kind : "container",
      );
    });
  }
}

/** The sandboxes made for this sandbox's stdio servers that are there now (none for a sandbox that is one). */
export async function serverSandboxesOf(
  context: RuntimeContext,
  agent: Pick<SandboxMetadata, "name" | "createdAt">,
): Promise<SandboxMetadata[]> {
  return (await listMetadata(context.paths)).filter(
    (each) => each.mcpServerOf?.sandbox === agent.name && each.mcpServerOf.createdAt === agent.createdAt,
  );
}

/**
 * Refuses a lifecycle change (`verb`: down, start, stop, reset) of a stdio server's sandbox on
 * its own while the sandbox it serves is there: it goes with that one (an orphan may go alone).
 */
export async function refuseServerSandboxAlone(
  context: RuntimeContext,
  metadata: SandboxMetadata | undefined,
  verb: string,
): Promise<void> {
  const of = metadata?.mcpServerOf;
  if (of === undefined || (await readMetadata(context.paths, of.sandbox))?.createdAt !== of.createdAt) return;
  throw new SandboxError(
    `sandbox "${metadata?.name ?? ""}" runs MCP server ${of.server} of sandbox "${of.sandbox}" and goes with it: forage-ctl ${verb} ${of.sandbox}`,
    "usage",
  );
}

/** The constant launcher a stdio server starts through (it exports the server's secrets for it alone). */
function launcherPath(): string {
  return join(packageRoot(), "runtime/assets/forage-mcp-server");
}

/** Where a stdio server's stderr goes, in its own sandbox: forage-ctl exec NAME--SERVER -- cat it. */
export const serverLogInside = "/tmp/forage-mcp-server.log";

/**
 * How the MCP gate starts a stdio server: in the sandbox made for it beside the agent's (checked
 * to be that one, of that sandbox's creation), as the sandbox's user, in its workspace, through
 * the launcher, which gives it its secrets as environment variables (read inside from the
 * sandbox's own copies: never in an argv) and keeps its stderr there. The values the gate masks
 * are those copies' and the host files' as they are now (a token rotated since `up` is both).
 */
export function serverLauncher(context: () => RuntimeContext): McpServerLauncher {
  return {
    argv: async (agent, server) => {
      if (server.command === null) throw new Error(`MCP server ${server.name} is reached by url, not run`);
      const metadata = await serverSandboxOf(context(), agent, server.name);
      const script = await readFile(launcherPath(), "utf8");
      const launcher = ["bash", "-c", script, "forage-mcp-server", serverEnvDirInside, serverLogInside];
      return execCommand(context(), metadata, [...launcher, ...server.command]);
    },
    secretValues: async (agent, server) => {
      const { paths, settings } = context();
      const copies = join(sandboxSecretsPath(paths, serverSandboxName(agent.name, server.name)), serverEnvDir);
      const files = [
        ...Object.keys(server.env).map((variable) => join(copies, variable)),
        ...Object.values(server.env).flatMap((secret) => settings.host.secrets[secret] ?? []),
      ];
      // Trimmed as the launcher's $(<file) trims: every trailing line break.
      const values = await Promise.all(files.map((file) => readFile(file, "utf8").catch(() => "")));
      return [...new Set(values.map((value) => value.replace(/\n+$/, "")).filter((value) => value !== ""))];
    },
  };
}

/** The sandbox made for this server beside the agent's, checked to be that one (of its creation). */
async function serverSandboxOf(
  context: RuntimeContext,
  agent: SandboxMetadata,
  server: string,
): Promise<SandboxMetadata> {
  const name = serverSandboxName(agent.name, server);
  const metadata = await readMetadata(context.paths, name);
  const of = metadata?.mcpServerOf;
  if (metadata === undefined || of?.sandbox !== agent.name || of.createdAt !== agent.createdAt || of.server !== server)
    throw new Error(
      `the sandbox of MCP server ${server} (${name}) is not there: it is made by up (forage-ctl down ${agent.name}, then up again)`,
    );
  return metadata;
}
