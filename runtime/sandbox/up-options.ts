import { z } from "zod";
import { sshPublicKey } from "../../generator/config/schema/names.js";
import { callerAgentSocket } from "../core/client-fields.js";
import { networkModes } from "../../generator/config/network-modes.js";

/**
 * What `up` takes from its caller as is, beyond the template, the workspace and the identity
 * (which the call's request spells in flags of their own): the up call's schema spreads these
 * fields, and UpRequest's type is inferred from them.
 */
export const upOptionFields = {
  sshKeys: z
    .array(sshPublicKey)
    .max(64)
    .exactOptional()
    .describe("SSH public keys that may log in, besides the configured ones"),
  sshAgent: z
    .array(
      z
        .string()
        .max(4096)
        .regex(/^(SHA256:[A-Za-z0-9+/]{43}|\/[^\u0000]+)$/, {
          error: "must be an absolute key file path or a SHA256: fingerprint",
        }),
    )
    .min(1)
    .max(16)
    .exactOptional()
    .describe(
      "serve an SSH agent with these keys (files of the user's, or fingerprints in the user's own agent), asking for every signature; instead of the template's sshAgent",
    ),
  sshAuthSock: callerAgentSocket,
  muxConfig: z.boolean().exactOptional().describe("mount the user's ~/.tmux.conf (default true)"),
  runtime: z
    .string()
    .regex(/^[a-z-]{1,32}$/)
    .exactOptional()
    .describe("the runtime to use (see forage-ctl runtime)"),
  network: z
    .enum(networkModes)
    .exactOptional()
    .describe("the network mode from the start, instead of the template's (its allow list stays)"),
};

export type UpOptions = z.output<z.ZodObject<typeof upOptionFields>>;
