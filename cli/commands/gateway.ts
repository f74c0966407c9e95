import type { Command } from "commander";
import { UserError } from "../../runtime/core/errors.js";
import { gatewayRequest } from "../gateway/gateway-request.js";

/**
 * `gateway`: one SSH entry for remote use, meant as sshd's ForceCommand for a gateway account.
 * The client's command (SSH_ORIGINAL_COMMAND) is validated before anything else runs; then the
 * session is `forage-ctl attach NAME` or `forage-ctl pick`, through their own code.
 */
export function registerGateway(program: Command): void {
  program
    .command("gateway")
    .description("One SSH entry for remote use: attach to a sandbox, or open the picker (an sshd ForceCommand)")
    .argument("[name]", "sandbox to attach to (else the client's command, else the picker)")
    .addHelpText(
      "after",
      `
Set as sshd's ForceCommand for a dedicated gateway account (the NixOS module's
services.forage.gateway does it all), then from anywhere:
  ssh -t forage@host myproj    attach to sandbox myproj's tmux session (detach with C-b d)
  ssh -t forage@host           the picker (forage-ctl pick): attach, create or remove
The client's command (SSH_ORIGINAL_COMMAND) must be empty or exactly one sandbox name (a-z, 0-9,
'-'); anything else (more words, shell syntax, scp, sftp, rsync) is refused and never run. With
NAME given here, a login may attach to that sandbox only. A session needs a terminal: ssh -t.
The gateway account talks to the daemon's gateway socket, which the daemon opens for the account
named by \`forage-ctl daemon --gateway-user\` (or FORAGE_GATEWAY_USER); it may list, create,
remove and attach to sandboxes as the configured user's own commands would, mounting only that
user's directories, and nothing else (no root shell, no daemon control).`,
    )
    .action(async (name: string | undefined) => {
      const request = gatewayRequest(process.env.SSH_ORIGINAL_COMMAND, name);
      if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) {
        throw new UserError(
          "gateway: this session has no terminal: connect with ssh -t (e.g. ssh -t forage@host NAME)",
          "usage",
        );
      }
      if (request.kind === "attach") {
        const { attachSandbox } = await import("./inside.js");
        return attachSandbox(program, request.name);
      }
      const { openPicker } = await import("./pick.js");
      return openPicker(program);
    });
}
