import { seccompGroups, type SeccompGroup } from "../../generator/config/schema/seccomp.js";

/**
 * The warning `status` shows when a template allows syscalls back, or null when it allows none.
 * @example seccompWarning(["namespaces"]) // "the seccomp filter allows back namespaces (unshare, setns, clone, clone3): …"
 */
export function seccompWarning(allowed: readonly string[]): string | null {
  if (allowed.length === 0) return null;
  const named = allowed.map((name) =>
    name in seccompGroups ? `${name} (${seccompGroups[name as SeccompGroup].join(", ")})` : name,
  );
  const keyring = allowed.some((name) => name === "keyring" || name === "keyctl");
  return (
    `the seccomp filter allows back ${named.join(", ")}: the sandbox can reach kernel interfaces the default refuses` +
    // Keyrings are per uid, not per sandbox: the agent's uid shares the host user's user keyring.
    (keyring ? "; keyctl reaches the user keyring of the agent's uid on the host (names of its keys, adding keys)" : "")
  );
}
