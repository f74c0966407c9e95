import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { TemplateModel } from "../../generator/model/model.js";
import { packageRoot } from "../core/package-root.js";
import type { ContextView } from "./context-view.js";
import { renderProse } from "./render-prose.js";

/** Where an agent finds a skill: its name (a directory), the line it decides by, and its text. */
interface Skill {
  name: string;
  description: string;
  /** The whole SKILL.md, front matter included. */
  text: string;
  /** The instructions alone, for AGENTS.md and GEMINI.md. */
  body: string;
}

const templatesDir = (): string => join(packageRoot(), "templates/context");
const readTemplate = (name: string): Promise<string> => readFile(join(templatesDir(), name), "utf8");

/**
 * The context files of one sandbox, path (relative to the context directory) → text: the system
 * prompt, one SKILL.md per skill (Forage's that apply, then the template's own), and AGENTS.md,
 * the prompt with every skill, for agents that read one file (Codex, OpenCode, Gemini CLI).
 */
export async function renderContext(view: ContextView, template: TemplateModel): Promise<Record<string, string>> {
  const prompt = await renderProse(await readTemplate("system-prompt.md.hbs"), view);
  const skills = [...(await forageSkills(view)), ...template.context.skills.map(userSkill)];
  const files: Record<string, string> = { "system-prompt.md": prompt };
  for (const skill of skills) files[`skills/${skill.name}/SKILL.md`] = skill.text;
  files["AGENTS.md"] = await renderProse(await readTemplate("agents-md.md.hbs"), { prompt, skills });
  return files;
}

/**
 * Compiles every context template now, so the first sandbox's start does not pay for it (loading
 * Handlebars and compiling take ~100 ms once per process): the daemon does this while idle.
 */
export async function warmContextTemplates(): Promise<void> {
  const names = [
    "system-prompt.md.hbs",
    "agents-md.md.hbs",
    ...["forage-jj", "forage-git-worktree", "forage-commits", "forage-nix"].map((name) => `skills/${name}.md.hbs`),
  ];
  for (const name of names) await renderProse(await readTemplate(name), {}).catch(() => undefined);
}

/** Forage's skills that fit the sandbox: its VCS's, commits always, nix when the workspace has a flake. */
async function forageSkills(view: ContextView): Promise<Skill[]> {
  const workspaces = [view.workspace, ...view.mounts];
  const names = [
    ...(workspaces.some((workspace) => workspace.jj) ? ["forage-jj"] : []),
    ...(workspaces.some((workspace) => workspace.git) ? ["forage-git-worktree"] : []),
    "forage-commits",
    ...(view.hasFlake ? ["forage-nix"] : []),
  ];
  return Promise.all(
    names.map(async (name) => parseSkill(name, await renderProse(await readTemplate(`skills/${name}.md.hbs`), view))),
  );
}

/** A skill file's parts: its front matter's description line, and the text after it. */
function parseSkill(name: string, text: string): Skill {
  const match = /^---\n(?:.*\n)*?description: (.*)\n(?:.*\n)*?---\n\n?/.exec(text);
  if (match === null)
    throw new Error(`internal: templates/context/skills/${name}.md.hbs has no front matter with a description`);
  return { name, description: match[1] ?? "", text, body: text.slice(match[0].length) };
}

/** A skill of the template's own: its front matter written here (the description quoted, so YAML reads it as a string). */
function userSkill(skill: TemplateModel["context"]["skills"][number]): Skill {
  const frontMatter = [
    "---",
    `name: ${skill.name}`,
    `description: ${JSON.stringify(skill.description)}`,
    "---",
    "",
  ].join("\n");
  return {
    name: skill.name,
    description: skill.description,
    text: `${frontMatter}\n${skill.body.replace(/\n*$/, "\n")}`,
    body: skill.body,
  };
}
