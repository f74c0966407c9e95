import { readdir } from "node:fs/promises";
import { templateNamePattern } from "../generator/config/schema/names.js";
import { findExecutable } from "./core/find-executable.js";
import { findSystem } from "./nspawn/nix-root.js";
import { runtimePaths, type RuntimePaths } from "./core/paths.js";
import { extraContainerUnavailable } from "./extra-container/availability.js";

/** What a runtime can do (the reference's capability list). */
export interface RuntimeCapabilities {
  nixosConfig: boolean;
  networkIsolation: boolean;
  ephemeralRoot: boolean;
  ssh: boolean;
  generatedFiles: boolean;
  resourceLimits: boolean;
  gracefulShutdown: boolean;
}

export interface RuntimeInfo {
  name: string;
  description: string;
  available: boolean;
  /** Why it is not available, or "" when it is. */
  reason: string;
  capabilities: RuntimeCapabilities;
}

const searchPath = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/run/current-system/sw/bin"];

function which(program: string): Promise<string | undefined> {
  return findExecutable([program], searchPath);
}

async function missing(programs: string[]): Promise<string[]> {
  const found = await Promise.all(programs.map(which));
  return programs.filter((_, i) => found[i] === undefined);
}

/** Every runtime forage-ctl knows, whether this host can use it, and why not. */
export async function detectRuntimes(paths: RuntimePaths = runtimePaths("/var/lib/forage")): Promise<RuntimeInfo[]> {
  const systems = paths.systemsDir;
  const hostTools = await missing(["systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "mount"]);
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hostReason =
    hostTools.length > 0 ? `missing ${hostTools.join(", ")} (Debian/Ubuntu: apt-get install systemd-container iproute2 util-linux)` : isRoot ? "" : "needs root (or the forage daemon)";
  const templates = await templatesWithSystems(systems);
  const nixReason = hostReason !== "" ? hostReason : templates.length === 0 ? `no prebuilt template systems in ${systems} (the NixOS module installs them)` : "";
  const extraReason = hostReason !== "" ? hostReason : ((await extraContainerUnavailable(paths)) ?? "");
  const all = { nixosConfig: true, networkIsolation: true, ephemeralRoot: true, ssh: true, generatedFiles: true, resourceLimits: true, gracefulShutdown: true };
  return [
    {
      name: "nspawn-nix",
      description: `systemd-nspawn booting the template's prebuilt NixOS system (${systems}/<template>; here: ${templates.join(", ") || "none"})`,
      available: nixReason === "",
      reason: nixReason,
      capabilities: all,
    },
    {
      name: "nspawn",
      description: "systemd-nspawn on a tmpfs root with the host's /usr read-only (any systemd Linux, no Nix)",
      available: hostReason === "",
      reason: hostReason,
      capabilities: { ...all, nixosConfig: false },
    },
    {
      name: "extra-container",
      description: "NixOS containers (container@f<N>.service) created with extra-container from containers/<template>.nix; chosen with --runtime",
      available: extraReason === "",
      reason: extraReason,
      capabilities: all,
    },
  ];
}

/** Templates that have a prebuilt system (a link into /nix/store with an init). */
async function templatesWithSystems(systems: string): Promise<string[]> {
  const entries = (await readdir(systems).catch(() => [] as string[])).filter((name) => templateNamePattern.test(name));
  const found = await Promise.all(entries.map(async (name) => ((await findSystem(systems, name)) === undefined ? undefined : name)));
  return found.filter((name): name is string => name !== undefined).sort();
}
