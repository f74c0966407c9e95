import type { Command } from "commander";
import type { Request } from "../../runtime/api/calls.js";
import { UserError } from "../../runtime/core/errors.js";
import type { PortView } from "../../runtime/sandbox/port-operations.js";
import { forwardHost, parsePortSpec, portLimits } from "../../runtime/state/port-spec.js";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";

/** port NAME [[HOSTPORT:]PORT] [--remove]: a sandbox's server on the host's loopback. */
export function registerPort(program: Command): void {
  program
    .command("port")
    .description("Reach a server in a sandbox from the host's 127.0.0.1 only; list, open or close its forwards")
    .argument("<sandbox>")
    .argument("[spec]", "[HOSTPORT:]PORT: the sandbox's PORT on the host's 127.0.0.1:HOSTPORT (default HOSTPORT: PORT)")
    .option("--remove", "close the forward on HOSTPORT (SPEC's host port; with HOSTPORT:PORT, only if it goes to PORT)")
    .option("--json", "print the sandbox's forwards as JSON (after the change, if any)")
    .addHelpText(
      "after",
      `
A forward listens on the host's 127.0.0.1:HOSTPORT and nowhere else (no other interface, no
other machine) and relays each connection to PORT at the sandbox's own address (forage-ctl
status shows it, e.g. 10.100.3.2). It goes one way: the host reaches the sandbox's port, and the
sandbox gains no way to the host. It works in every network mode (none, restricted, full).

  - The server in the sandbox must listen on its address or on 0.0.0.0, not on 127.0.0.1
    there (e.g. vite --host 0.0.0.0, next dev -H 0.0.0.0, python3 -m http.server -b 0.0.0.0).
  - Every user of the host reaches 127.0.0.1: forward nothing a local user must not see.
  - HOSTPORT is ${portLimits.lowestHostPort}-${portLimits.highestPort} (lower ones are privileged); at most ${portLimits.maxPerSandbox} forwards a sandbox.
  - Opening one needs the sandbox running and the host port free (if it is taken, the
    error says by what). Forwards are kept across stop, start and reset (they open with the
    sandbox) and go with it on down. The network guard holds them: no forage-ctl process
    needs to stay.

Listing states: open (listening now), closed (the sandbox is stopped), failed (could not listen
at start: ERROR says why; listing or opening it again retries, --remove drops it). forage-ctl ps
and status list them too.

Example:
  forage-ctl port fix-42 3000             # 127.0.0.1:3000 → fix-42's port 3000
  forage-ctl port fix-42 8080:3000        # 127.0.0.1:8080 → fix-42's port 3000
  forage-ctl port fix-42                  # list: HOST SANDBOX STATE
  forage-ctl port fix-42 8080 --remove`,
    )
    .action(async (sandbox: string, spec: string | undefined, options: { remove?: boolean; json?: boolean }) => {
      const change = portChange(spec, options.remove === true);
      const views = await (await operationsOf(program)).port({ name: sandbox, change });
      if (options.json === true) return printJson(views);
      if (change === null) return printForwards(views);
      process.stdout.write(`${sandbox}: ${describe(change, views)}\n`);
    });
}

/** The change the arguments ask for (null: list), checked before anything is sent. */
export function portChange(spec: string | undefined, remove: boolean): Request<"port">["change"] {
  if (spec === undefined) {
    if (remove)
      throw new UserError("port --remove: say which forward: forage-ctl port SANDBOX HOSTPORT --remove", "usage");
    return null;
  }
  if (!remove) return { kind: "add", forward: parsePortSpec(spec, "add").forward };
  const { forward, hostGiven } = parsePortSpec(spec, "remove");
  return { kind: "remove", hostPort: forward.hostPort, port: hostGiven ? forward.port : null };
}

function describe(change: NonNullable<Request<"port">["change"]>, views: PortView[]): string {
  if (change.kind === "remove") return `closed ${forwardHost}:${change.hostPort}`;
  const view = views.find((each) => each.hostPort === change.forward.hostPort);
  return view === undefined
    ? "no forward"
    : `${view.hostAddress}:${view.hostPort} → ${view.sandboxAddress}:${view.port} (${view.state})`;
}

function printForwards(views: PortView[]): void {
  printTable(
    ["HOST", "SANDBOX", "STATE"],
    views.map((view) => [
      `${view.hostAddress}:${view.hostPort}`,
      `${view.sandboxAddress}:${view.port}`,
      view.error === null ? view.state : `${view.state}: ${view.error}`,
    ]),
  );
}
