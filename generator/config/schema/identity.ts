import { z } from "zod";
import { hostPath } from "./names.js";

/** The git/jj identity commits made inside a sandbox carry. */
export const identitySchema = z
  .strictObject({
    gitUser: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[^\n\r<>]+$/, { error: "must be one line without '<' or '>'" })
      .optional()
      .describe("Author name for git and jj commits."),
    gitEmail: z
      .string()
      .max(254)
      .regex(/^[^\s<>@]+@[^\s<>@]+$/, { error: 'must be an e-mail address, e.g. "agent@example.com"' })
      .optional()
      .describe("Author e-mail for git and jj commits."),
    sshKeyPath: hostPath.optional().describe("Host path of a private key the agent uses for git over SSH."),
  })
  .describe("Agent identity; precedence: host VCS config < host agentIdentity < template < CLI flags.");

export type Identity = z.output<typeof identitySchema>;
