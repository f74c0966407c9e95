import type { Command } from "commander";
import type { LoginStatus } from "../../runtime/logins/login-status.js";
import { operationsOf } from "../operations.js";
import { printJson, printTable } from "../output.js";
import { readSecretInput } from "../secret-input.js";

/** auth set AGENT | auth status [--json] | auth remove AGENT. */
export function registerAuth(program: Command): void {
  const operations = () => operationsOf(program);
  const auth = program
    .command("auth")
    .description("Keep agents' subscription logins on the host (Claude, Codex/ChatGPT, Gemini/Google)")
    .addHelpText(
      "after",
      `
An agent with \`login: "token"\` or \`login: "oauth"\` in its template uses a login stored here
instead of an API key. The store is root's (0600, under the state directory, one file per user
and agent); values are read from stdin only, never from arguments, and never shown again.

  token  Claude Code's long-lived token (run \`claude setup-token\` on the host); given to the
         agent's process only (auth wrapper) or added by the API proxy (auth proxy).
  oauth  the agent's own login file after logging in on the host: ~/.claude/.credentials.json,
         ~/.codex/auth.json (ChatGPT) or ~/.gemini/oauth_creds.json (Google). The refresh token
         never enters a sandbox: the host refreshes the access token when it expires and the
         proxy adds it; the sandbox gets a copy of the file whose tokens are stand-ins.

Examples:
  claude setup-token            # then paste the token at:
  forage-ctl auth set claude
  forage-ctl auth set codex < ~/.codex/auth.json
  forage-ctl auth status --json`,
    );
  auth
    .command("set")
    .description("Store an agent's login, read from stdin (or pasted, hidden, on a terminal)")
    .argument("<agent>", "the agent's name in your templates")
    .option("--json", "print the stored login's status as JSON")
    .action(async (agent: string, options: { json?: boolean }) => {
      const text = await readSecretInput(`Paste the login for ${agent} (input hidden), then press Enter: `);
      const status = await (await operations()).authSet({ agent, text });
      if (options.json === true) return printJson(status);
      process.stdout.write(
        `stored the ${status.stored ?? ""} login of ${agent}${status.expiresAt === null ? "" : `; valid until ${status.expiresAt}`}\n`,
      );
    });
  auth
    .command("status")
    .description("Show the logins the templates want and the host holds: AGENT KIND STATE SET EXPIRES (never a value)")
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const statuses = await (await operations()).authStatus({});
      if (options.json === true) return printJson(statuses);
      if (statuses.length === 0)
        return void process.stdout.write('no agent has a login (add login: "token" or "oauth" to an agent)\n');
      printTable(["AGENT", "KIND", "STATE", "SET", "EXPIRES"], statuses.map(statusRow));
    });
  auth
    .command("remove")
    .description(
      "Remove an agent's stored login (proxied agents lose it at their next request; a token given by auth wrapper stays in running sandboxes until they are reset)",
    )
    .argument("<agent>", "the agent's name")
    .action(async (agent: string) => {
      await (await operations()).authRemove({ agent });
      process.stdout.write(`removed the login of ${agent}\n`);
    });
}

function statusRow(status: LoginStatus): string[] {
  const kind = status.stored ?? (status.wanted ?? []).join("|");
  const state = status.wanted === null ? `${status.state} (no template uses it)` : status.state;
  return [status.agent, kind, state, status.setAt ?? "-", status.expiresAt ?? "-"];
}
