import { z } from "zod";

/** A skill's name: its directory under ~/.claude/skills and its heading elsewhere. */
export const skillName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, { error: "must be 1-64 characters of a-z, 0-9 and '-'" })
  .refine((name) => !name.startsWith("forage-"), { error: 'names starting with "forage-" are Forage\'s own skills' });

const skillSchema = z.strictObject({
  description: z
    .string()
    .min(1)
    .max(1024)
    .regex(/^[^\u0000-\u001f\u007f]*$/, {
      error: "must be one line without control characters (it is the skill's front matter)",
    })
    .describe("When the agent should use the skill (one line; Claude reads it to decide)."),
  body: z.string().min(1).max(65536).describe("The skill's instructions, in Markdown."),
});

/**
 * What every agent of a sandbox is told about it: a system prompt, skills, AGENTS.md / GEMINI.md
 * (rendered per sandbox from templates/context/). Merged by key with parents; skills by name.
 */
export const agentContextSchema = z
  .strictObject({
    enable: z
      .boolean()
      .optional()
      .describe("Give agents Forage's context (system prompt, skills, AGENTS.md, GEMINI.md). Default: true."),
    fragments: z
      .array(z.string().min(1).max(16384))
      .max(32)
      .optional()
      .describe("Your own paragraphs (Markdown), added to the context every agent reads. Default: none."),
    skills: z
      .record(skillName, skillSchema)
      .refine((skills) => Object.keys(skills).length <= 32, { error: "at most 32 skills" })
      .optional()
      .describe("Your own skills by name, beside Forage's (jj or git worktree, commits, nix). Default: none."),
  })
  .refine((context) => context.enable !== false || (context.fragments === undefined && context.skills === undefined), {
    error: "fragments and skills are part of the context: remove them, or remove enable: false",
  })
  .describe("The context agents get: Forage's prompt and skills, plus your own.");
