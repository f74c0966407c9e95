import { SandboxError } from "../../core/errors.js";

/** The container could not be started or reached. */
export class ContainerError extends SandboxError {
  override name = "ContainerError";
  constructor(message: string) {
    super(message, "container");
  }
}
