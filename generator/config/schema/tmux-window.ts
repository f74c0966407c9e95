import { z } from "zod";

/** One tmux window: its name and the command run in it (a template's tmuxWindows; forage.json holds the resolved list). */
export const tmuxWindowSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,32}$/, { error: "must be 1-32 characters of letters, digits, '.', '_' and '-'" })
    .describe("Window name shown in tmux's status line."),
  command: z.string().min(1).max(4096).describe("Command run in the window, as the agent, in the workspace."),
});
