import { connect, createServer, type Server, type Socket } from "node:net";
import { forwardHost, type PortForward } from "../../state/port-spec.js";

/** A forward as its guard reports it: listening, or why it is not (an errno code such as EADDRINUSE, or a message). */
export interface ForwardState extends PortForward {
  open: boolean;
  error: string | null;
}

/**
 * Connections one forward relays at once; more are refused (closed at once). Only the host's own
 * users reach loopback, but a runaway client should not hold the guard host's descriptors.
 */
const maxConnections = 512;

interface OpenForward {
  port: number;
  server: Server;
  connections: Set<Socket>;
}

/**
 * One sandbox's `forage-ctl port` forwards, held by its guard in the guard host: each listens on
 * the host's 127.0.0.1 only (never a wildcard, so no other machine reaches it) and relays every
 * connection to the sandbox's own address. One way only: nothing here ever listens where the
 * sandbox can reach it (its packets to the host's loopback are martians, and the host-side table
 * refuses what it sends to the host), and the guard connects to the sandbox's port and nowhere
 * else. The host's connection leaves as the host's own traffic, so neither table blocks it: the
 * host-side table judges what comes from the sandbox (its replies are `established`), and the
 * in-sandbox table only what the sandbox sends (replies again).
 *
 * @example
 * const forwards = new PortForwarder("10.100.7.2");
 * await forwards.sync([{ hostPort: 8080, port: 3000 }]); // 127.0.0.1:8080 → 10.100.7.2:3000
 */
export class PortForwarder {
  private readonly forwards = new Map<number, OpenForward>();
  /** Syncs one at a time: two at once would each try to listen on a new port, and one would fail. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Once closed, a listener a sync was still opening is closed at once. */
  private closed = false;

  constructor(private readonly sandboxAddress: string) {}

  /**
   * Makes the open forwards exactly `wanted`: closes the others (cutting their connections),
   * opens the missing ones. A forward that cannot listen is reported, never thrown: the rest open.
   * Given as a function, `wanted` is read in turn (a read made before another sync's would undo it).
   */
  sync(wanted: readonly PortForward[] | (() => Promise<readonly PortForward[]>)): Promise<ForwardState[]> {
    const done = this.queue.then(async () => this.apply(typeof wanted === "function" ? await wanted() : wanted));
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Closes every forward and cuts their connections (the sandbox stopped, or its guard goes). */
  close(): void {
    this.closed = true;
    for (const hostPort of [...this.forwards.keys()]) this.closeOne(hostPort);
  }

  private async apply(wanted: readonly PortForward[]): Promise<ForwardState[]> {
    for (const [hostPort, forward] of this.forwards) {
      if (!wanted.some((each) => each.hostPort === hostPort && each.port === forward.port)) this.closeOne(hostPort);
    }
    return Promise.all(wanted.map((forward) => this.ensure(forward)));
  }

  private async ensure(forward: PortForward): Promise<ForwardState> {
    if (this.forwards.has(forward.hostPort)) return { ...forward, open: true, error: null };
    const connections = new Set<Socket>();
    // allowHalfOpen: a client that ends its request (FIN) still gets the whole answer.
    const server = createServer({ allowHalfOpen: true }, (client) => this.relay(client, forward.port, connections));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ host: forwardHost, port: forward.hostPort, exclusive: true }, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      server.close();
      return { ...forward, open: false, error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
    }
    server.on("error", () => undefined);
    if (this.closed) {
      server.close();
      return { ...forward, open: false, error: "the sandbox's guard closed" };
    }
    this.forwards.set(forward.hostPort, { port: forward.port, server, connections });
    return { ...forward, open: true, error: null };
  }

  private closeOne(hostPort: number): void {
    const forward = this.forwards.get(hostPort);
    if (forward === undefined) return;
    this.forwards.delete(hostPort);
    forward.server.close();
    for (const socket of forward.connections) socket.destroy();
  }

  /** Relays one client to the sandbox's port, both ways, half-closes passed on; an error on either side cuts both. */
  private relay(client: Socket, port: number, connections: Set<Socket>): void {
    // Two sockets a connection: the client's and the one to the sandbox.
    if (connections.size >= maxConnections * 2) return void client.destroy();
    const upstream = connect({ host: this.sandboxAddress, port, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      connections.add(socket);
      socket.once("close", () => connections.delete(socket));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    // The client gone both ways: what the sandbox still sends has nowhere to go.
    client.once("close", () => upstream.destroy());
    // The sandbox's side closed: the client gets what is still buffered, then the connection goes.
    upstream.once("close", () => client.end(() => client.destroy()));
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
