import { findExecutable } from "./find-executable.js";

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
export async function detectRuntimes(): Promise<RuntimeInfo[]> {
  const hostTools = await missing(["systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "mount"]);
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hostReason = hostTools.length > 0 ? `missing ${hostTools.join(", ")} (Debian/Ubuntu: apt-get install systemd-container iproute2 util-linux)` : isRoot ? "" : "needs root";
  return [
    {
      name: "nspawn",
      description: "systemd-nspawn on a tmpfs root with the host's /usr read-only (any systemd Linux, no Nix)",
      available: hostReason === "",
      reason: hostReason,
      capabilities: { nixosConfig: false, networkIsolation: true, ephemeralRoot: true, ssh: true, generatedFiles: true, resourceLimits: true, gracefulShutdown: true },
    },
    {
      name: "nspawn-nix",
      description: "systemd-nspawn booting the template's prebuilt NixOS closure (/etc/forage/systems/<template>)",
      available: false,
      reason: "not implemented in this version of forage-ctl (generated closures are built by the NixOS module already)",
      capabilities: { nixosConfig: true, networkIsolation: true, ephemeralRoot: true, ssh: true, generatedFiles: true, resourceLimits: true, gracefulShutdown: true },
    },
    {
      name: "extra-container",
      description: "NixOS containers created with extra-container from containers/<template>.nix",
      available: false,
      reason: (await which("extra-container")) === undefined ? "extra-container is not installed" : "not implemented in this version of forage-ctl",
      capabilities: { nixosConfig: true, networkIsolation: true, ephemeralRoot: true, ssh: true, generatedFiles: true, resourceLimits: true, gracefulShutdown: true },
    },
  ];
}
