import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentApiModel, LoginModel } from "../../generator/model/model.js";
import { runtimePaths, type RuntimePaths } from "../../runtime/core/paths.js";
import { LoginKeeper } from "../../runtime/logins/login-keeper.js";
import { httpsTokenPost } from "../../runtime/gates/api-proxy/token-post.js";
import { KeyStore } from "../../runtime/gates/api-proxy/key-store.js";
import { ProxyAuditLog } from "../../runtime/gates/api-proxy/proxy-audit-log.js";
import { handleProxyRequest } from "../../runtime/gates/api-proxy/proxy-handler.js";
import type { ProxyServices } from "../../runtime/gates/api-proxy/proxy-exchange.js";
import { proxyServer, type ListenerTimeouts } from "../../runtime/gates/api-proxy/proxy-server.js";
import { RateLimiter } from "../../runtime/gates/api-proxy/rate-limiter.js";
import { proxyGate } from "../../runtime/gates/api-proxy/sandbox-gate.js";
import { newCounters, type ProxiedAgent, type SandboxProxy } from "../../runtime/gates/api-proxy/sandbox-proxy.js";
import { UpstreamAgents } from "../../runtime/gates/api-proxy/upstream-agents.js";

/** A reply as a client in the sandbox sees it. */
export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes as they arrived (a compressed body is not text). */
  bytes: Buffer;
}

/**
 * The proxy's real request handler on a loopback listener, in front of a real HTTPS upstream,
 * with real keys in files, a real audit log and real limits. Only the listener differs from a
 * sandbox's: its route is given here instead of found from a running sandbox.
 */
export class ProxyFixture {
  readonly dir = mkdtempSync(join(tmpdir(), "forage-proxy-"));
  readonly auditPath = join(this.dir, "audit.jsonl");
  readonly services: ProxyServices;
  readonly keys = new KeyStore(() => undefined);
  /** Where its login store lives (user "dev"), and what the login keeper logged. */
  readonly paths: RuntimePaths = runtimePaths(join(this.dir, "state"), {});
  readonly loginLog: string[] = [];
  route: SandboxProxy;
  private server: Server | undefined;
  private readonly others: Server[] = [];
  port = 0;

  constructor(
    /** The HTTPS upstream: its loopback port and the CA its certificate comes from. */
    private readonly upstream: { port: number; caFile: string },
    limits: { requests: number; tokens: number | null; windowMs: number } = {
      requests: 1000,
      tokens: null,
      windowMs: 60_000,
    },
  ) {
    const origin = `https://localhost:${upstream.port}`;
    const upstreams = new UpstreamAgents(
      "10.100",
      new Set([origin, `https://127.0.0.1:${upstream.port}`]),
      readFileSync(upstream.caFile, "utf8"),
    );
    this.services = {
      keys: this.keys,
      logins: new LoginKeeper(this.paths, "dev", httpsTokenPost(upstreams), (line) => this.loginLog.push(line)),
      limiter: new RateLimiter(limits),
      gate: proxyGate(limits.tokens !== null),
      upstreams,
      // Refusals condensed per second, not per 10 s: tests see the count sooner.
      audit: new ProxyAuditLog(this.auditPath, 1024 * 1024, () => undefined, 1000),
      counters: newCounters(),
    };
    this.route = {
      sandbox: "alpha",
      template: "t",
      sandboxAddress: "127.0.0.1",
      listenAddress: "127.0.0.1",
      agents: new Map(),
      placeholders: [],
      filter: { methods: ["GET", "HEAD", "POST"], pathPrefixes: ["/"], maxRequestBytes: 4096 },
    };
  }

  /** Writes a key file and has the key store serve it. */
  async setKeys(keys: Record<string, string>): Promise<void> {
    const files: Record<string, string> = {};
    for (const [secret, value] of Object.entries(keys)) {
      files[secret] = join(this.dir, secret);
      writeFileSync(files[secret], `${value}\n`, { mode: 0o600 });
    }
    await this.keys.use(files);
  }

  addAgent(
    name: string,
    auth: ProxiedAgent["auth"],
    secret: string,
    api: Partial<AgentApiModel> & Pick<AgentApiModel, "provider" | "header" | "value">,
  ): void {
    const full: AgentApiModel = {
      upstream: `https://localhost:${this.upstream.port}`,
      baseUrlEnv: {},
      hosts: [`localhost:${this.upstream.port}`],
      ...api,
    };
    (this.route.agents as Map<string, ProxiedAgent>).set(name, {
      name,
      auth,
      secret,
      login: null,
      api: full,
      upstreamUrl: new URL(full.upstream),
    });
  }

  /** An agent whose requests get its login (stored under user "dev") instead of a key. */
  addLoginAgent(name: string, login: LoginModel, api: Pick<AgentApiModel, "provider" | "upstream">): void {
    const full: AgentApiModel = {
      header: "authorization",
      value: "Bearer {key}",
      baseUrlEnv: {},
      hosts: [new URL(api.upstream).host],
      ...api,
    };
    (this.route.agents as Map<string, ProxiedAgent>).set(name, {
      name,
      auth: "proxy",
      secret: null,
      login,
      api: full,
      upstreamUrl: new URL(full.upstream),
    });
  }

  /** Listens as a sandbox's listener does (its timeouts may be shortened for a test). */
  async start(timeouts?: ListenerTimeouts): Promise<void> {
    this.server = proxyServer((req, res) => handleProxyRequest(this.route, req, res, this.services), timeouts);
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Another sandbox's listener (same template, agents and services): its port. */
  async serveAlso(sandbox: string): Promise<number> {
    const route = { ...this.route, sandbox };
    const server = proxyServer((req, res) => handleProxyRequest(route, req, res, this.services));
    this.others.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  /** Sends a request to the proxy as a sandbox would, and reads the whole reply. */
  send(method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: this.port, method, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            bytes: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  auditRecords(): Record<string, unknown>[] {
    return readFileSync(this.auditPath, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async stop(): Promise<void> {
    this.keys.close();
    this.services.upstreams.close();
    await this.services.audit.close();
    for (const other of this.others) {
      other.closeAllConnections();
      other.close();
    }
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
