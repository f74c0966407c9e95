import { networkModes, type NetworkMode } from "../generator/config/network-modes.js";
import { UserError } from "../runtime/core/errors.js";

/** `--network MODE` of up and run: the mode a sandbox has from its first packet. */
export const networkModeHelp = `network mode from the start: ${networkModes.join(", ")} (default: the template's)`;

/** The mode `--network` names, or a usage error that lists them. */
export function networkModeOption(text: string | undefined): NetworkMode | undefined {
  if (text === undefined) return undefined;
  const mode = networkModes.find((each) => each === text);
  if (mode === undefined) throw new UserError(`--network: "${text}" is not one of ${networkModes.join(", ")}`, "usage");
  return mode;
}
