import type { LoginFlavor } from "../../../generator/config/agent-logins.js";

/** The beta flag Anthropic's API requires of requests authenticated with an OAuth token. */
export const claudeOAuthBeta = "oauth-2025-04-20";

/**
 * What a logged-in agent itself sends besides its token, set by the proxy so a request reads as
 * the agent's own would: Claude's OAuth beta flag (added to any the sandbox sent), Codex's
 * ChatGPT account. Headers are keyed in lower case.
 */
export function applyLoginHeaders(
  headers: Record<string, string | string[]>,
  flavor: LoginFlavor,
  accountId: string | null,
): void {
  if (flavor === "claude") {
    const sent = headers["anthropic-beta"];
    const flags = (Array.isArray(sent) ? sent : sent === undefined ? [] : [sent])
      .flatMap((value) => value.split(","))
      .map((flag) => flag.trim())
      .filter((flag) => flag !== "");
    if (!flags.includes(claudeOAuthBeta)) flags.push(claudeOAuthBeta);
    headers["anthropic-beta"] = flags.join(",");
  }
  if (flavor === "codex") {
    // The account is the host's login's, whatever the sandbox's stand-in file says.
    delete headers["chatgpt-account-id"];
    if (accountId !== null) headers["chatgpt-account-id"] = accountId;
  }
}
