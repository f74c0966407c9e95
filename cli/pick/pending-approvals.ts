import { callDaemon } from "../../runtime/daemon/client.js";
import { clientSocketPath } from "../../runtime/daemon/gateway-socket.js";
import { rootSocketPath } from "../../runtime/daemon/protocol.js";
import { isRootsSocket } from "../../runtime/core/private-socket.js";

/**
 * How many approvals wait for each sandbox, for the picker to show. Only a daemon that already
 * runs is asked (the picker does not start one to learn there is nothing), and any failure — no
 * daemon, the gateway's account, which may not see the queue — shows none: the list is the
 * picker's job, and `forage-ctl approvals` says what went wrong.
 */
export async function pendingApprovals(): Promise<ReadonlyMap<string, number>> {
  try {
    const root = process.getuid?.() === 0;
    const socket = root ? rootSocketPath() : await clientSocketPath();
    if (root && !(await isRootsSocket(socket))) return new Map();
    const pending = await callDaemon("approvals", {}, socket);
    const counts = new Map<string, number>();
    for (const request of pending) counts.set(request.sandbox, (counts.get(request.sandbox) ?? 0) + 1);
    return counts;
  } catch {
    return new Map();
  }
}
