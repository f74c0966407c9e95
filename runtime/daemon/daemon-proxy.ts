import type { Model } from "../../generator/model/model.js";
import type { RuntimePaths } from "../core/paths.js";
import type { ApiProxy } from "../gates/api-proxy/api-proxy.js";
import type { AskApproval } from "../gates/approvals/approval.js";
import { readProxyStatus } from "../gates/api-proxy/proxy-status.js";
import { proxyNeeded } from "../gates/api-proxy/sandbox-routes.js";

/**
 * The API proxy the daemon runs, started once the settings in force have an agent behind it:
 * at the daemon's start, or later, when an edit adds one (a proxied template's sandbox gets its
 * proxy whoever started it: the daemon's rounds and each lifecycle call check again). One proxy
 * per host: while a `forage-ctl proxy` serves in the foreground, the daemon starts none.
 */
export class DaemonProxy {
  private proxy: ApiProxy | undefined;
  private starting: Promise<void> | undefined;
  /** The last reason it did not start, said once. */
  private said: string | undefined;

  constructor(
    private readonly settings: () => Model,
    private readonly paths: RuntimePaths,
    private readonly log: (line: string) => void,
    /** The daemon's approvals queue: the MCP gate served beside the proxy asks it. */
    private readonly ask: AskApproval,
  ) {}

  /** Starts the proxy when needed and none runs; a running one takes the sandboxes as they are now. */
  async ensure(): Promise<void> {
    if (this.proxy !== undefined) return this.proxy.sync();
    if (!proxyNeeded(this.settings())) return;
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** SIGHUP: every key read again. */
  reload(): Promise<void> {
    return this.proxy?.reload() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.starting;
    await this.proxy?.close();
    this.proxy = undefined;
  }

  private async start(): Promise<void> {
    const running = await readProxyStatus(this.paths);
    if (running !== undefined) return this.sayOnce(`API proxy not started: one already runs (pid ${running.pid})`);
    const { startApiProxy } = await import("../gates/api-proxy/api-proxy.js");
    const { mcpGate } = await import("../gates/mcp-gate/mcp-gate-service.js");
    const { serverLauncher } = await import("../sandbox/mcp-server-sandboxes.js");
    const launch = serverLauncher(() => ({ settings: this.settings(), paths: this.paths, warn: this.log }));
    const mcp = mcpGate({ settings: this.settings, paths: this.paths, ask: this.ask, log: this.log, launch });
    try {
      this.proxy = await startApiProxy(this.settings(), this.paths, this.log, this.settings, mcp);
      this.said = undefined;
    } catch (error) {
      // Sandbox commands still work; proxied agents get refused connections until it is fixed.
      this.sayOnce(`API proxy not started: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private sayOnce(line: string): void {
    if (line !== this.said) this.log(line);
    this.said = line;
  }
}
