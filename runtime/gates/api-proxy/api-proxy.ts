import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { Model } from "../../../generator/model/model.js";
import { proxyAuditLogPath, type RuntimePaths } from "../../core/paths.js";
import { listMetadata } from "../../state/metadata-store.js";
import { KeyStore } from "./key-store.js";
import { LoginKeeper } from "../../logins/login-keeper.js";
import { httpsTokenPost } from "./token-post.js";
import { ProxyAuditLog } from "./proxy-audit-log.js";
import { handleProxyRequest } from "./proxy-handler.js";
import type { McpHandOver, ProxyServices } from "./proxy-exchange.js";
import { proxyServer } from "./proxy-server.js";
import { RateLimiter, windowMs } from "./rate-limiter.js";
import { proxyGate } from "./sandbox-gate.js";
import { newCounters, type SandboxProxy } from "./sandbox-proxy.js";
import { keyFiles, sandboxRoute } from "./sandbox-routes.js";
import { UpstreamAgents } from "./upstream-agents.js";
import { statusFileGroup, writeProxyStatus, type ProxyStatus } from "./proxy-status.js";

/** How often the sandboxes are re-read besides on every change of their metadata. */
const resyncMs = 2000;

/** Open connections one sandbox may have to its proxy listener. */
const maxConnectionsPerSandbox = 256;

/** The running API proxy: one listener per sandbox with proxied agents, on its link's host end. */
export interface ApiProxy {
  /** Re-reads the sandboxes now: listeners for new ones, none for gone ones, fresh placeholders. */
  sync(): Promise<void>;
  /** Re-reads every key (SIGHUP). */
  reload(): Promise<void>;
  status(): ProxyStatus;
  close(): Promise<void>;
}

interface Listener {
  server: Server;
  route: SandboxProxy;
  sockets: Set<Socket>;
}

/**
 * Starts the API proxy for a host's sandboxes. It identifies a sandbox by the listener the
 * connection reached (each sandbox's own host-end address) and by the connection's source, which
 * must be that sandbox's address (the host table drops spoofed sources); no header is trusted.
 * Its port, limits and upstreams are `settings`'; the sandboxes it serves, and their keys, come
 * from `routesFrom` each round (the daemon's: the settings file as it is now). Requests to
 * /_mcp/… go to `mcp`, the MCP gate, on the same listener (it is handed in: a gate imports no other).
 */
export async function startApiProxy(
  settings: Model,
  paths: RuntimePaths,
  log: (line: string) => void,
  routesFrom: () => Model = () => settings,
  mcp?: McpHandOver,
): Promise<ApiProxy> {
  const { proxy } = settings.host;
  const { services, keys } = await proxyServices(settings, paths, log);
  if (mcp !== undefined) services.mcp = mcp;
  const listeners = new Map<string, Listener>();
  const started = new Date().toISOString();
  const status = (): ProxyStatus => statusOf(proxy.port, routesFrom(), started, listeners, services, keys);
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  const complaints = new Set<string>();
  const statusGroup = await statusFileGroup(settings);
  const step = async (): Promise<void> => {
    if (closed) return;
    await reconcile({ settings: routesFrom(), port: proxy.port }, paths, listeners, services, (line) => {
      // Said once until it changes: a taken port would otherwise be logged every two seconds.
      if (!complaints.has(line)) log(line);
      complaints.add(line);
    });
    await keys.use(keyFilesOf(routesFrom(), listeners));
    await writeProxyStatus(paths, status(), statusGroup);
  };
  const sync = (): Promise<void> =>
    (queue = queue
      .then(step)
      .catch((error: unknown) => log(`proxy: ${error instanceof Error ? error.message : String(error)}`)));
  const watcher = watchSandboxes(paths, () => void sync());
  const timer = setInterval(() => void sync(), resyncMs);
  timer.unref();
  await sync();
  log(`API proxy on port ${proxy.port} of each sandbox's host end; audit log ${services.audit.path}`);
  return {
    sync,
    reload: async () => {
      await keys.reload();
      await sync();
    },
    status,
    close: async () => {
      closed = true;
      clearInterval(timer);
      await queue;
      watcher?.close();
      keys.close();
      await Promise.all([...listeners.keys()].map((name) => closeListener(listeners, name)));
      services.upstreams.close();
      await services.audit.close();
      await writeProxyStatus(paths, null, statusGroup);
    },
  };
}

function statusOf(
  port: number,
  settings: Model,
  startedAt: string,
  listeners: Map<string, Listener>,
  services: ProxyServices,
  keys: KeyStore,
): ProxyStatus {
  return {
    pid: process.pid,
    port,
    startedAt,
    sandboxes: [...listeners.values()].map(({ route }) => ({
      name: route.sandbox,
      address: `${route.listenAddress}:${port}`,
      agents: [...route.agents.keys()],
    })),
    counters: services.counters,
    keys: {
      loaded: Object.keys(keyFilesOf(settings, listeners)).filter((secret) => keys.get(secret) !== undefined),
      reloads: keys.reloads,
    },
    auditLog: services.audit.path,
  };
}

/** Keys, limits, upstream pools and the audit log, from the config's proxy settings. */
async function proxyServices(
  settings: Model,
  paths: RuntimePaths,
  log: (line: string) => void,
): Promise<{ services: ProxyServices; keys: KeyStore }> {
  const { proxy } = settings.host;
  const extraCa = proxy.caFile === null ? null : await readFile(proxy.caFile, "utf8");
  const keys = new KeyStore(log);
  const upstreams = new UpstreamAgents(settings.host.network.base, new Set(proxy.allowUpstreams), extraCa);
  const services: ProxyServices = {
    keys,
    logins: new LoginKeeper(paths, settings.host.user, httpsTokenPost(upstreams), log),
    limiter: new RateLimiter({
      requests: proxy.rateLimit.requests,
      tokens: proxy.rateLimit.tokens,
      windowMs: windowMs(proxy.rateLimit.window),
    }),
    gate: proxyGate(proxy.rateLimit.tokens !== null),
    upstreams,
    audit: new ProxyAuditLog(proxyAuditLogPath(paths, proxy.auditLog), proxy.auditLogMaxBytes, log),
    counters: newCounters(),
  };
  return { services, keys };
}

function keyFilesOf(settings: Model, listeners: Map<string, Listener>): Record<string, string> {
  return keyFiles(
    settings,
    [...listeners.values()].map((listener) => listener.route),
  );
}

/** Metadata changes (a sandbox started, stopped, was made or removed) trigger a sync at once. */
function watchSandboxes(paths: RuntimePaths, changed: () => void): FSWatcher | undefined {
  let pending: NodeJS.Timeout | undefined;
  try {
    const watcher = watch(paths.sandboxesDir, { persistent: false }, () => {
      clearTimeout(pending);
      pending = setTimeout(changed, 20);
    });
    watcher.on("error", () => undefined);
    return watcher;
  } catch {
    return undefined;
  }
}

/** Listeners for the running sandboxes the settings now route (on the port the proxy started with). */
async function reconcile(
  { settings, port }: { settings: Model; port: number },
  paths: RuntimePaths,
  listeners: Map<string, Listener>,
  services: ProxyServices,
  log: (line: string) => void,
): Promise<void> {
  const wanted = new Map<string, SandboxProxy>();
  for (const metadata of await listMetadata(paths)) {
    if (metadata.pid === null) continue;
    const route = await sandboxRoute(settings, paths, metadata);
    if (route !== undefined) wanted.set(route.sandbox, route);
  }
  for (const [name, listener] of listeners) {
    const route = wanted.get(name);
    if (route === undefined || route.listenAddress !== listener.route.listenAddress)
      await closeListener(listeners, name);
    else listener.route = route;
  }
  for (const [name, route] of wanted) {
    if (!listeners.has(name)) await openListener(listeners, route, port, services, log);
  }
  services.limiter.forgetAllBut(new Set(wanted.keys()));
  services.upstreams.forgetAllBut(new Set(wanted.keys()));
}

async function openListener(
  listeners: Map<string, Listener>,
  route: SandboxProxy,
  port: number,
  services: ProxyServices,
  log: (line: string) => void,
): Promise<void> {
  const listener: Listener = {
    server: proxyServer((req, res) => handleProxyRequest(listener.route, req, res, services)),
    route,
    sockets: new Set(),
  };
  // Enough for any agent, few enough that a sandbox cannot use up the daemon's descriptors.
  listener.server.maxConnections = maxConnectionsPerSandbox;
  listener.server.on("connection", (socket: Socket) => {
    // The source must be the sandbox's own address; the listener is on its own link's host end.
    if (socket.remoteAddress !== listener.route.sandboxAddress) {
      services.counters.connectionsRefused += 1;
      return void socket.destroy();
    }
    listener.sockets.add(socket);
    socket.once("close", () => listener.sockets.delete(socket));
  });
  const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    listener.server.once("error", resolve);
    listener.server.listen(port, route.listenAddress, () => resolve(undefined));
  });
  if (error !== undefined) {
    // The link may not be up yet (the next sync retries); a taken port is worth saying.
    if (error.code !== "EADDRNOTAVAIL")
      log(
        `proxy: cannot listen on ${route.listenAddress}:${port} for ${route.sandbox}: ${error.code ?? error.message}`,
      );
    return;
  }
  // Errors after listening (EMFILE on accept) must not end the process that hosts the proxy.
  listener.server.on("error", (failure: NodeJS.ErrnoException) =>
    log(`proxy: listener of ${route.sandbox}: ${failure.code ?? failure.message}`),
  );
  listeners.set(route.sandbox, listener);
}

async function closeListener(listeners: Map<string, Listener>, name: string): Promise<void> {
  const listener = listeners.get(name);
  if (listener === undefined) return;
  listeners.delete(name);
  for (const socket of listener.sockets) socket.destroy();
  await new Promise<void>((resolve) => listener.server.close(() => resolve()));
}
