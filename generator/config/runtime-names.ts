/**
 * The runtimes a sandbox can run on, by where its root comes from and what stands between it and
 * the host's kernel (runtime/backends/ implements each): nspawn, a tmpfs root on the host's /usr;
 * nspawn-nix, the template's NixOS system booted from its init; extra-container, a NixOS container
 * (container@f<N>.service) made by extra-container; gvisor, a host root under gVisor's runsc, whose
 * own kernel answers the agent's system calls. Its own module (no zod) so the runtime can name
 * them without loading the config schema.
 */
export const sandboxRuntimes = ["nspawn", "nspawn-nix", "extra-container", "gvisor"] as const;
export type SandboxRuntime = (typeof sandboxRuntimes)[number];

/**
 * How gVisor's kernel intercepts the agent's system calls: auto picks what works on the host
 * (systrap where runsc has it, else ptrace; kvm only where a probe boots a guest).
 */
export const gvisorPlatforms = ["auto", "systrap", "ptrace", "kvm"] as const;
export type GvisorPlatform = (typeof gvisorPlatforms)[number];
/** The network stacks a gvisor sandbox may use: gVisor's own (netstack) or the host's. */
export const gvisorStacks = ["sandbox", "host"] as const;
export type GvisorStack = (typeof gvisorStacks)[number];
