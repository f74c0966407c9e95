import { stat } from "node:fs/promises";
import { ContainerError } from "../shared/container-error.js";

/*
 * gVisor's own network stack (runsc --network=sandbox). runsc takes the addresses and routes of
 * the namespace it is given (the sandbox's, with its veth and host-side table), removes them from
 * the host's stack there, and answers every socket call itself: the agent's packets leave through
 * the veth as frames, and no socket call reaches the host's kernel.
 *
 * This runsc (2022) refuses it on current kernels: before it takes a namespace's interfaces it
 * checks that the namespace is not the host's, by whether /proc/sys/net/core/rmem_default exists,
 * and newer kernels (6.18 here) have that file in every namespace. So it is started in a mount namespace
 * of its own where that directory, as the sandbox's namespace shows it, is an empty tmpfs; the
 * check runsc meant is made here instead (netstackNamespaceCheck), on the namespace's identity.
 */

/**
 * Refuses a namespace that is forage-ctl's own (the host's): runsc would take its interfaces.
 * The sandbox's is always one made for it (sandbox-link.ts); this is the check runsc's stands for.
 */
export async function netstackNamespaceCheck(namespacePath: string): Promise<void> {
  const [sandbox, own] = await Promise.all([stat(namespacePath), stat("/proc/self/ns/net")]);
  if (sandbox.ino === own.ino && sandbox.dev === own.dev)
    throw new ContainerError(
      `${namespacePath} is the host's own network namespace: gVisor's netstack would take its interfaces`,
    );
}

/**
 * Every runsc call for a netstack sandbox runs in the sandbox's namespace: runsc's control socket
 * is an abstract one, and those belong to a network namespace.
 */
export function inNamespace(namespacePath: string, argv: readonly string[]): string[] {
  return ["nsenter", `--net=${namespacePath}`, "--", ...argv];
}

/**
 * `runsc run` (or restore) for a netstack sandbox: in a private mount namespace, inside the
 * sandbox's network namespace, /proc/sys/net/core masked by an empty read-only tmpfs (see above),
 * then runsc. The mask is this launch's alone: the sandbox and its gofer make mount namespaces of
 * their own, and gVisor's /proc is its own.
 */
export function netstackLaunch(namespacePath: string, runscArgv: readonly string[]): string[] {
  const script = 'mount -t tmpfs -o ro,size=4k,nosuid,nodev,noexec forage-netstack /proc/sys/net/core && exec "$@"';
  return [
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "--",
    ...inNamespace(namespacePath, ["/bin/sh", "-c", script, "forage-netstack", ...runscArgv]),
  ];
}
