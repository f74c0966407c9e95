import { z } from "zod";
import { absolutePath } from "./names.js";

/*
 * The approvals queue's settings (issue 16): how long a request waits, and a command told of each
 * new one. Shared by the config schema and forage.json's, so a value one accepts the other does.
 */

/** Seconds a request waits for an answer before it counts as denied. */
export const approvalDeadline = z
  .number()
  .int()
  .min(1, { error: "must be at least 1 second" })
  .max(86_400, { error: "must be at most 86400 seconds (a day): an unanswered request holds its asker that long" });

/**
 * A command as an argv array: its program an absolute path (the daemon's PATH is not the user's),
 * its arguments plain strings. Never shell text: no shell ever reads it.
 */
export const approvalCommand = z
  .array(
    z
      .string()
      .max(4096)
      .regex(/^[^\x00]*$/, { error: "must not contain NUL" }),
  )
  .min(1, { error: 'name the program, e.g. ["/home/me/bin/notify-phone"]' })
  .max(64)
  .refine((argv) => absolutePath.safeParse(argv[0]).success, {
    error:
      'the program (the first element) must be an absolute path, e.g. "/home/me/bin/notify-phone": the daemon\'s PATH is not yours',
  });

/** The config's `approvals`. */
export const approvalsSchema = z
  .strictObject({
    deadline: approvalDeadline
      .default(30)
      .describe("Seconds a request waits for an answer before it is denied (an asker may name its own). Default: 30."),
    notify: approvalCommand
      .optional()
      .describe(
        'A command run for each new request, as the configured user, with the request as JSON on its stdin (never as shell text), for phones and chat, e.g. ["/home/me/bin/notify-phone", "--topic", "forage"]. Killed after 10 s; a failure is logged in the daemon\'s log and never holds the queue. Default: none (a desktop notification is still sent when the user has a session bus).',
      ),
  })
  .describe(
    "The approvals queue: requests from sandboxes' gates (unknown hosts, pushes, SSH signatures) that wait for forage-ctl approve or deny.",
  );
