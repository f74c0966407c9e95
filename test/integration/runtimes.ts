import { toolsAvailable } from "../support/tools.js";

/** A runtime that runs the host's /usr, which the integration tests parameterised by runtime run on. */
export type HostRootRuntime = "nspawn" | "gvisor";

export interface RuntimeCase {
  runtime: HostRootRuntime;
  /** The network base of this case's TestHost: each case has its own, so both can run at once. */
  prefix: string;
  /** False when a tool the runtime needs is missing here (under CI=true toolsAvailable throws instead). */
  runs: boolean;
}

/**
 * The rows of a `describe.each` that runs the same tests on every host-root runtime: nspawn when
 * `tools` (the file's own list) are here, gvisor when runsc is here too. A second kernel changes
 * how a sandbox is made, not what the tests may expect of it.
 */
export function onEachRuntime(tools: { run: boolean }, prefixes: Record<HostRootRuntime, string>): RuntimeCase[] {
  const gvisor = tools.run && toolsAvailable("runsc").run;
  return [
    { runtime: "nspawn", prefix: prefixes.nspawn, runs: tools.run },
    { runtime: "gvisor", prefix: prefixes.gvisor, runs: gvisor },
  ];
}
