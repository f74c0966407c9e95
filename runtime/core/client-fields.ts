import { z } from "zod";

/*
 * Fields a client sends that more than one call takes (everything a client sends is untrusted).
 * Optional fields are exactOptional: JSON has no undefined, so neither has the request type.
 */

/** A host path from a client: absolute, and no control characters (they end up in flags and logs). */
export const clientHostPath = z
  .string()
  .startsWith("/")
  .max(4096)
  .regex(/^[^\x00-\x1f\x7f]*$/, { error: "must not contain control characters" });

/** The caller's SSH_AUTH_SOCK: a socket's path (sun_path holds 107 bytes). */
export const callerAgentSocket = clientHostPath
  .max(107)
  .exactOptional()
  .describe("the caller's SSH_AUTH_SOCK: keys named by fingerprint are relayed to the agent there, as the user");
