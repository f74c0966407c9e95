import { z } from "zod";
import type { ExecRelay } from "./protocol.js";

/*
 * What the daemon checks of a client's messages besides its request: the exec relay and the
 * resizes of a relayed terminal. Here, not in protocol.ts: a client needs no schema library.
 */

/** A relayed terminal's size; anything beyond a few thousand cells is not a screen. */
export const terminalSize = z.strictObject({
  rows: z.number().int().min(1).max(1000),
  cols: z.number().int().min(1).max(1000),
});

/**
 * What an exec's client relays: whether it sends stdin, and the terminal (size and TERM) the
 * command should get, which is then resized with `resize` messages. Typed as the protocol's
 * ExecRelay, so the two cannot drift apart.
 */
export const execRelay: z.ZodType<ExecRelay> = z.strictObject({
  stdin: z.boolean().describe("the client sends stdin chunks (else the command's stdin is empty)"),
  terminal: z
    .strictObject({ size: terminalSize, term: z.string().regex(/^[A-Za-z0-9._+-]{1,64}$/) })
    .exactOptional()
    .describe("run the command on a pseudo-terminal of this size and type"),
});
