import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Model, TemplateModel } from "../../../../generator/model/model.js";
import { serverRoute } from "../../../../runtime/gates/mcp-gate/mcp-gate-service.js";

/* A template's MCP server as the gate reaches it: its token read from the host's file, put where header and value say. */
const dir = mkdtempSync(join(tmpdir(), "forage-mcp-route-"));
afterEach(() => rmSync(join(dir, "token"), { force: true }));

const settings = { host: { secrets: { "tracker-token": join(dir, "token") } } } as unknown as Pick<Model, "host">;
const server = (part: Partial<TemplateModel["mcp"]["servers"][number]>): TemplateModel["mcp"]["servers"][number] => ({
  name: "tracker",
  url: "https://mcp.tracker.example/mcp",
  command: null,
  template: null,
  env: {},
  workspace: null,
  secret: "tracker-token",
  header: "authorization",
  value: "Bearer {key}",
  tools: { allow: [], ask: [], deny: [] },
  ...part,
});

describe("an MCP server's route at the gate", () => {
  it("sends the token in the configured header and value, and masks both the token and the whole value", async () => {
    writeFileSync(join(dir, "token"), "tok-5e1f0a9c7b3d2e84\n");
    const route = await serverRoute(settings, server({ header: "x-api-key", value: "Token {key} realm=t" }));
    expect(route.headers).toEqual({ "x-api-key": "Token tok-5e1f0a9c7b3d2e84 realm=t" });
    expect(route.secrets).toEqual(["tok-5e1f0a9c7b3d2e84", "Token tok-5e1f0a9c7b3d2e84 realm=t"]);
    expect(route.url.href).toBe("https://mcp.tracker.example/mcp");
  });

  it("sends no header for a server without a secret", async () => {
    const route = await serverRoute(settings, server({ secret: null }));
    expect([route.headers, route.secrets]).toEqual([{}, []]);
  });

  it("refuses a token that would split the header line, without saying the token", async () => {
    writeFileSync(join(dir, "token"), "tok-first\r\nx-injected: 1\n");
    const refused = serverRoute(settings, server({}));
    await expect(refused).rejects.toThrow("is not one line of visible ASCII");
    await expect(refused).rejects.not.toThrow("tok-first");
  });
});
