import { setTimeout as sleep } from "node:timers/promises";
import type { Operations } from "../runtime/api/operations.js";
import type { SandboxView } from "../runtime/api/sandbox-view.js";

/** The daemon's rounds are 2 s apart: a sandbox root started itself is taken by the next one. */
const waitMs = 3_000;

/**
 * A sandbox with agents behind the API proxy that no proxy serves would have them refused with
 * nothing said (issue 27). Root's own `up` starts it in this process: the daemon's proxy takes
 * it at its next round, so this waits for that before it says so.
 */
export async function warnIfNotProxied(
  operations: Operations,
  sandbox: SandboxView,
  warn: (message: string) => void,
): Promise<void> {
  if (sandbox.apiProxy === null || sandbox.apiProxy.served) return;
  for (let waited = 0; waited < waitMs; waited += 250) {
    await sleep(250);
    if ((await operations.status({ name: sandbox.name })).apiProxy?.served === true) return;
  }
  warn(
    `sandbox ${sandbox.name}: no API proxy serves it, so its agents behind the proxy are refused. ` +
      "The daemon runs one for the settings it serves (forage-ctl proxy --status; sudo forage-ctl daemon --stop, then sudo forage-ctl up, restarts it with this settings file)",
  );
}
