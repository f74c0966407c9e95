import { chmod, lstat, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { contextMountPath, contextReaderOf } from "../../generator/config/agent-context-targets.js";
import type { TemplateModel } from "../../generator/model/model.js";
import type { Bind } from "../core/bind.js";
import type { RuntimeContext } from "../core/context.js";
import { pathUnder } from "../core/names.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { contextView } from "./context-view.js";
import { renderContext } from "./render-context.js";

/** A sandbox's rendered context on the host (root's; read-only inside). */
export function sandboxContextPath(context: Pick<RuntimeContext, "paths">, sandbox: string): string {
  return pathUnder(context.paths.contextDir, sandbox);
}

/**
 * Renders the sandbox's context afresh (the network policy may have changed since the last
 * start) into its directory: root's, files 0644 (the agent reads them through a read-only bind).
 * Resolves once the directory exists (the container can bind it) with the rendering still going:
 * `written` settles when the files are there, which the agents' session waits for. The rendering
 * (~100 ms the first time in a process, for Handlebars) thus overlaps the container's start.
 * Nothing when the template turns the context off.
 */
export async function startContextFiles(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<{ written: Promise<void> }> {
  const dir = sandboxContextPath(context, metadata.name);
  await rm(dir, { recursive: true, force: true });
  if (!template.context.enable) return { written: Promise.resolve() };
  // The parent is traversable, not listable: sandbox names are the host's business.
  await mkdir(context.paths.contextDir, { recursive: true, mode: 0o711 });
  await mkdir(dir, { mode: 0o755 });
  const written = renderInto(dir, context, metadata, template);
  // Awaited before the session; a start that fails first must not leave it unhandled.
  written.catch(() => undefined);
  return { written };
}

/**
 * Renders a running sandbox's context again where it is (the bind shows the new text inside at
 * once): its network changed live, and the agent reads what it may reach from there. Nothing
 * when the template turns the context off.
 */
export async function refreshContextFiles(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<void> {
  if (!template.context.enable) return;
  const dir = sandboxContextPath(context, metadata.name);
  // The directory is bound (not each file), so what is written into it is seen inside as written.
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await renderInto(dir, context, metadata, template);
}

async function renderInto(
  dir: string,
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<void> {
  // lstat, not stat: a workspace's flake.nix that is a link to elsewhere still says "a flake".
  const hasFlake = await lstat(join(metadata.workspace.hostPath, "flake.nix")).then(
    () => true,
    () => false,
  );
  const files = await renderContext(contextView(metadata, template, context.settings.host, hasFlake), template);
  for (const [relative, text] of Object.entries(files)) {
    const file = pathUnder(dir, relative);
    await mkdir(dirname(file), { recursive: true, mode: 0o755 });
    await writeFile(file, text, { mode: 0o644 });
    await chmod(file, 0o644);
  }
}

/** The bind of the rendered context into the sandbox, read-only; none when it is off. */
export function contextBinds(
  context: Pick<RuntimeContext, "paths">,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Bind[] {
  return template.context.enable
    ? [{ source: sandboxContextPath(context, metadata.name), target: contextMountPath, readOnly: true }]
    : [];
}

/**
 * Links in the agent's home to the read-only context, where each program looks (home-relative
 * path → target): Claude's skills, Codex's and OpenCode's AGENTS.md, Gemini CLI's GEMINI.md.
 */
export function contextHomeLinks(template: TemplateModel): Record<string, string> {
  if (!template.context.enable) return {};
  const links: Record<string, string> = {};
  const readers = new Set(template.agents.map((agent) => contextReaderOf(agent.package.join("."))));
  // The whole directory: Claude finds exactly the skills rendered for this sandbox.
  if (readers.has("claude")) links[".claude/skills"] = `${contextMountPath}/skills`;
  if (readers.has("codex")) links[".codex/AGENTS.md"] = `${contextMountPath}/AGENTS.md`;
  if (readers.has("opencode")) links[".config/opencode/AGENTS.md"] = `${contextMountPath}/AGENTS.md`;
  if (readers.has("gemini")) links[".gemini/GEMINI.md"] = `${contextMountPath}/AGENTS.md`;
  return links;
}
