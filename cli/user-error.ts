import type { ExitCodeValue } from "./exit-codes.js";

/** An error caused by the user's input: printed without a stack, with its own exit code. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
  ) {
    super(message);
    this.name = "UserError";
  }
}
