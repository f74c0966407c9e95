import type { SandboxMetadata } from "../../runtime/state/metadata.js";

/**
 * A created sandbox's metadata as forage-ctl records it, with what a test cares about given:
 * direct workspace at `hostPath`, nobody's uid and gid, nothing running (pid null) unless given.
 */
export function sandboxMetadata(
  given: Pick<SandboxMetadata, "name" | "template" | "slot"> & Partial<SandboxMetadata> & { hostPath: string },
): SandboxMetadata {
  const { hostPath, ...rest } = given;
  return {
    version: 1,
    containerName: `f${given.slot}`,
    runtime: "nspawn",
    createdAt: "2026-11-26T00:00:00Z",
    phase: "ready",
    creatorPid: 1,
    workspace: { mode: "direct", hostPath, managed: false },
    mounts: [],
    agentIdentity: {},
    uid: 65534,
    gid: 65534,
    pid: null,
    startedAt: null,
    system: null,
    cgroup: null,
    muxConfig: null,
    authorizedKeys: [],
    secrets: [],
    network: null,
    guard: null,
    sshAgent: null,
    pushGate: null,
    ...rest,
  };
}
