import { runtimePaths, type RuntimePaths } from "../core/paths.js";
import type { SandboxRuntime } from "../state/metadata.js";
import type { Backend, BackendCapabilities } from "./backend.js";
import { extraContainerBackend } from "./extra-container/extra-container-backend.js";
import { gvisorBackend } from "./gvisor/gvisor-backend.js";
import { nspawnBackend } from "./nspawn/nspawn-backend.js";
import { nspawnNixBackend } from "./nspawn/nspawn-nix-backend.js";

/** Every runtime, by its name in the metadata: a new runtime is one more family folder (or backend in one) and an entry here. */
const backends: Readonly<Record<SandboxRuntime, Backend>> = {
  "nspawn-nix": nspawnNixBackend,
  nspawn: nspawnBackend,
  "extra-container": extraContainerBackend,
  gvisor: gvisorBackend,
};

/** The backend a sandbox runs on. */
export function backendOf(runtime: SandboxRuntime): Backend {
  return backends[runtime];
}

/** The backend of a runtime named by a user (--runtime), or undefined for a name no backend has. */
export function backendNamed(name: string): Backend | undefined {
  return Object.values(backends).find((backend) => backend.name === name);
}

/**
 * The runtime a new sandbox gets when none is asked for: the template's prebuilt NixOS system
 * when the host has one (NixOS with the module), else the host's /usr.
 */
export async function defaultBackend(paths: RuntimePaths, template: string): Promise<Backend> {
  return (await nspawnNixBackend.unavailable(paths, template)) === undefined ? nspawnNixBackend : nspawnBackend;
}

/** One runtime as `forage-ctl runtime` lists it. */
export interface RuntimeInfo {
  name: SandboxRuntime;
  description: string;
  available: boolean;
  /** Why it is not available, or "" when it is. */
  reason: string;
  capabilities: Omit<BackendCapabilities, "pinnedBinds" | "ownInit">;
}

/** Every runtime forage-ctl knows, whether this host can use it, and why not. */
export async function detectRuntimes(paths: RuntimePaths = runtimePaths("/var/lib/forage")): Promise<RuntimeInfo[]> {
  return Promise.all(
    Object.values(backends).map(async (backend) => {
      const reason = (await backend.unavailable(paths)) ?? "";
      const { pinnedBinds: _pinned, ownInit: _own, ...capabilities } = backend.capabilities;
      return {
        name: backend.name,
        description: await backend.describe(paths),
        available: reason === "",
        reason,
        capabilities,
      };
    }),
  );
}
