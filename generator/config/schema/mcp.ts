import { z } from "zod";
import { headerName } from "./agent-api.js";
import { envVarName, hostPath, secretName, templateName } from "./names.js";

/** An MCP server's name: the sandbox reaches it at /_mcp/<name> on the gate. */
export const mcpServerNamePattern = /^[a-z][a-z0-9-]{0,63}$/;

/** Headers MCP's transport sets itself: a token in one of them would break the session. */
const transportHeaders = ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id"];

/** Hosts a plain-HTTP server may be on: this machine (the token then never crosses a network). */
const loopbackHost = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** A tool name or a pattern of them: `*` is any run of characters. */
const toolPattern = z.string().regex(/^[\x21-\x7e]{1,128}$/, {
  error: 'must be a tool name or a pattern with "*" (1-128 visible ASCII characters)',
});

const toolList = (what: string) => z.array(toolPattern).max(256).optional().describe(what);

/** The URL, or null when it is none (the url check says so). */
function parsedUrl(text: string): URL | null {
  return URL.canParse(text) ? new URL(text) : null;
}

const serverUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL of the server's MCP endpoint" })
  .max(2048)
  // Each check judges only what the one before let through: one problem, said once.
  .refine((url) => parsedUrl(url)?.protocol !== "http:" || loopbackHost.test(parsedUrl(url)?.hostname ?? ""), {
    error: "must be https, or http on this machine (localhost, 127.x.x.x, [::1]): the gate sends the server's token",
  })
  .refine((url) => (parsedUrl(url)?.username ?? "") === "" && (parsedUrl(url)?.password ?? "") === "", {
    error: "must not carry a user or password: name the token in `secret` (read on the host, sent in `header`)",
  });

/** One argv item of a stdio server's command: visible text, passed as is (never through a shell). */
const commandItem = z.string().regex(/^[^\0\n\r]{1,4096}$/, {
  error: "must be 1-4096 characters without NUL or line breaks",
});

/** Fields only a server reached by URL has, and fields only a server run by command has. */
const urlOnly = ["secret", "header", "value"] as const;
const commandOnly = ["template", "env", "workspace"] as const;

export const mcpServerSchema = z
  .strictObject({
    url: serverUrl
      .optional()
      .describe(
        "The server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp, reached by the gate on the host: the sandbox never sees it or the token. Give either url or command.",
      ),
    command: z
      .array(commandItem)
      .min(1)
      .max(64)
      .optional()
      .describe(
        'A stdio server: its program and arguments, e.g. ["github-mcp-server", "stdio"], run by the gate in a sandbox of its own (made from `template`, started with the agent\'s sandbox and removed with it). Give either url or command.',
      ),
    template: templateName
      .optional()
      .describe(
        "With command: the template of the server's own sandbox (its network allow list, packages, runtime). It must have no agents and no MCP servers of its own.",
      ),
    env: z
      .record(envVarName, secretName)
      .optional()
      .describe(
        "With command: environment variables the server gets from secrets, e.g. { GITHUB_PERSONAL_ACCESS_TOKEN: \"github\" }. Each secret's file is copied into the server's sandbox only, and masked in every answer. Default: none.",
      ),
    workspace: hostPath
      .optional()
      .describe(
        "With command: a host directory mounted as is at the server's sandbox's workspace path. Default: an empty directory of its own, removed with it.",
      ),
    secret: secretName
      .optional()
      .describe(
        "A name in `secrets`: its file's content is the server's token, which the gate sends in `header` and masks in every answer. It never enters the sandbox. Default: none (no token).",
      ),
    header: headerName
      .refine((name) => !transportHeaders.includes(name), {
        error: `must not be a header of MCP's transport (${transportHeaders.join(", ")})`,
      })
      .optional()
      .describe('The header the token goes in. Default: "authorization".'),
    value: z
      .string()
      .max(256)
      .regex(/^[\x20-\x7e]*\{key\}[\x20-\x7e]*$/, { error: 'must hold "{key}" once, e.g. "Bearer {key}"' })
      .refine((value) => value.split("{key}").length <= 2, { error: 'must hold "{key}" exactly once' })
      .optional()
      .describe('The header\'s value, "{key}" standing for the token. Default: "Bearer {key}".'),
    tools: z
      .strictObject({
        allow: toolList("Tools the agent calls without asking."),
        ask: toolList("Tools whose every call waits for a human (forage-ctl approve ID [--for 10m | --always])."),
        deny: toolList("Tools refused outright and left out of the tools the agent is shown."),
      })
      .optional()
      .describe(
        'Which tools the agent may call, by name or pattern ("get_*"): deny wins over ask, ask over allow, and a tool no list names is asked about. Default: every tool asked about.',
      ),
  })
  .superRefine((server, context) => {
    if ((server.url === undefined) === (server.command === undefined))
      return context.addIssue({
        code: "custom",
        message:
          server.url === undefined
            ? "an MCP server needs url (a server reached over HTTP) or command (a stdio server run in a sandbox of its own)"
            : "give url or command, not both: a server is either reached over HTTP or run by the gate",
      });
    const [kind, others] = server.url === undefined ? ["command", urlOnly] : ["url", commandOnly];
    for (const key of others)
      if (server[key] !== undefined)
        context.addIssue({
          code: "custom",
          path: [key],
          params: { atKey: true },
          message: `${key} is for a server ${kind === "url" ? "run by command" : "reached by url"}; this one has ${kind}: remove ${key}`,
        });
    if (server.command !== undefined && server.template === undefined)
      context.addIssue({
        code: "custom",
        path: ["command"],
        params: { atKey: true },
        message:
          'a stdio server runs in a sandbox of its own: name its template (template: "NAME", one with the server\'s network allow list and packages, and no agents)',
      });
  })
  // A header and its value carry the token: without one they would be read by nothing.
  .superRefine((server, context) => {
    if (server.secret !== undefined || server.url === undefined) return;
    for (const key of ["header", "value"] as const)
      if (server[key] !== undefined)
        context.addIssue({
          code: "custom",
          path: [key],
          params: { atKey: true },
          message: `${key} says how the token is sent, and the server has none: name it in secret, or remove ${key}`,
        });
  });

export const mcpSchema = z
  .strictObject({
    servers: z
      .record(
        z.string().regex(mcpServerNamePattern, {
          error: "MCP server names must be 1-64 characters of a-z, 0-9 and '-', starting with a letter",
        }),
        mcpServerSchema,
      )
      .describe("MCP servers by name. Merged by name with parents."),
  })
  .describe(
    "MCP servers the agents reach through the MCP gate on the host: the gate adds each server's token (the sandbox never holds it), judges each tool call by the server's tools policy (asking a human where it says so), and records every call in the audit log. Default: none.",
  );

export type McpConfig = z.output<typeof mcpSchema>;
