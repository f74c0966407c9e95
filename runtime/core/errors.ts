import { UserError } from "../../generator/lib/user-error.js";

export { UserError, isUserErrorKind, type UserErrorKind } from "../../generator/lib/user-error.js";

/** A lifecycle failure the user can act on (a user error raised by the runtime). */
export class SandboxError extends UserError {
  override name = "SandboxError";
}
