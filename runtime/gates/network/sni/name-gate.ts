import { connect, type Socket } from "node:net";
import { pipeline } from "node:stream/promises";
import type { SpecialAddresses } from "../../shared/special-addresses.js";
import { isHostName } from "../dns/dns-message.js";
import { resolveAddresses } from "../dns/dns-filter.js";
import type { UpstreamResolver } from "../dns/upstream.js";
import { nameVerdict } from "../../../../generator/policy/network/name-verdict.js";
import type { PolicyRules } from "../../../../generator/policy/network/policy-rules.js";
import { maxFirstBytes, readClientHello, readHttpHost, type FirstBytes } from "./first-bytes.js";
import { HttpRequestStream, RefusedRequest } from "./http-request-stream.js";

/** The gate's logic, handed the connections gate-listener.ts accepts. */
export interface NameGate {
  /** A connection the sandbox opened to `originalPort` (443: TLS, 80: HTTP). */
  handle(socket: Socket, originalPort: number): void;
  /** The policy changed: closes the spliced connections whose name it no longer allows. */
  recheck(): void;
}

/** A spliced connection and the name it was let through for. */
interface Spliced {
  name: string;
  port: number;
  address: string;
  client: Socket;
  server: Socket;
}

export interface NameGateDeps {
  policy: () => PolicyRules;
  upstream: UpstreamResolver;
  refused: (refusal: { name?: string; port: number; rule: string }) => void;
  /** Where the gate never connects: the host, link-local, sandboxes, private ranges not admitted. */
  special: SpecialAddresses;
  /** A name the policy does not allow but a human approved when asked: the addresses it is admitted at on `port`, or null. */
  admittedAt?: (name: string, port: number) => ReadonlySet<string> | null;
}

/** Connecting upstream, and an idle spliced connection, give up after these. */
const connectTimeoutMs = 10_000;
const idleTimeoutMs = 15 * 60_000;
/** How long a client may take to send its ClientHello or request head. */
const firstBytesTimeoutMs = 10_000;

/**
 * The stricter level of restricted mode: reads the name a connection is for (TLS SNI, HTTP Host),
 * refuses it unless the policy allows it on that port (so a name not on the allowlist is refused
 * even on an address an allowed name shares, as on CDNs), then connects to that name itself,
 * resolved upstream, and splices the bytes (TLS is not terminated). Connections without a name
 * are refused. Refusals are TCP resets.
 */
export function createNameGate(deps: NameGateDeps): NameGate {
  const spliced = new Set<Spliced>();
  const recheck = (): void => {
    for (const connection of spliced) {
      const verdict = nameVerdict(deps.policy(), connection.name);
      const approved = deps.admittedAt?.(connection.name, connection.port)?.has(connection.address) === true;
      const allowed =
        deps.policy().mode === "restricted" &&
        ((verdict.allowed && (verdict.ports === null || verdict.ports.includes(connection.port))) || approved);
      if (!allowed) {
        connection.client.resetAndDestroy();
        connection.server.destroy();
      }
    }
  };
  return {
    handle: (socket, port) => gate(socket, port, port === 443 ? readClientHello : readHttpHost, deps, spliced),
    recheck,
  };
}

function gate(
  client: Socket,
  port: number,
  read: (data: Buffer) => FirstBytes,
  deps: NameGateDeps,
  spliced: Set<Spliced>,
): void {
  let buffered = Buffer.alloc(0);
  const refuse = (rule: string, name?: string): void => {
    deps.refused({ ...(name === undefined ? {} : { name }), port, rule });
    client.resetAndDestroy();
  };
  client.setTimeout(firstBytesTimeoutMs, () => refuse("no name sent in time"));
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const first = read(buffered.subarray(0, maxFirstBytes));
    if (first.kind === "need-more") return;
    client.off("data", onData);
    client.pause();
    client.setTimeout(0);
    if (first.kind === "refuse") return refuse(first.reason);
    if (!isHostName(first.name)) return refuse("not a host name");
    const verdict = nameVerdict(deps.policy(), first.name);
    // A name approved when asked goes only on its port, and only to the addresses approved for it.
    const approved = verdict.allowed ? null : (deps.admittedAt?.(first.name, port) ?? null);
    if (!verdict.allowed && approved === null) return refuse(verdict.rule, first.name);
    if (verdict.allowed && verdict.ports !== null && !verdict.ports.includes(port))
      return refuse(`port ${port} not in allow for ${first.name}`, first.name);
    void splice(client, { name: first.name, port, approved }, buffered, deps, spliced).catch((error: Error) =>
      refuse(error.message, first.name),
    );
  };
  client.on("data", onData);
}

/**
 * Client → server: TLS as it comes (the name cannot change inside it); HTTP through a judge of
 * every request on the connection, each of which must be for the name the gate connected to.
 */
function forward(
  client: Socket,
  server: Socket,
  gated: { name: string; port: number; head: Buffer; refused: (rule: string) => void },
): Promise<void> {
  const { name, port, head } = gated;
  if (port === 443) {
    server.write(head);
    return pipeline(client, server);
  }
  const judge = (host: string, index: number): string | null =>
    host === name ? null : `request ${index} names ${host}, the connection is for ${name}`;
  const requests = new HttpRequestStream(port, judge);
  // Registered before pipeline's own listener, so the client is reset before pipeline closes it.
  requests.once("error", (error) => {
    if (error instanceof RefusedRequest) gated.refused(error.message);
  });
  // The first read goes back to the front of the client's bytes, to be judged with the rest.
  client.unshift(head);
  return pipeline(client, requests, server);
}

async function splice(
  client: Socket,
  to: { name: string; port: number; approved: ReadonlySet<string> | null },
  head: Buffer,
  deps: NameGateDeps,
  spliced: Set<Spliced>,
): Promise<void> {
  const { name, port, approved } = to;
  // The gate connects from the host, outside the sandbox's table, so it checks this itself.
  const address = (await resolveAddresses(deps.upstream, name)).find(
    (candidate) => deps.special.refusal(candidate) === null && (approved === null || approved.has(candidate)),
  );
  if (address === undefined)
    throw new Error(
      approved === null
        ? `${name} resolves to no address the sandbox may reach`
        : `${name} resolves to no address approved for it (a new lookup asks again)`,
    );
  if (client.destroyed) return;
  const server = connect({ host: address, port, timeout: connectTimeoutMs });
  await new Promise<void>((resolve, reject) => {
    server.once("connect", resolve);
    server.once("error", reject);
    server.once("timeout", () => reject(new Error(`${name}:${port} did not answer`)));
  }).catch((error: Error) => {
    server.destroy();
    throw error;
  });
  if (client.destroyed) return void server.destroy();
  server.setTimeout(idleTimeoutMs, () => server.destroy());
  client.setTimeout(idleTimeoutMs, () => client.destroy());
  const connection = { name, port, address, client, server };
  spliced.add(connection);
  const refused = (rule: string): void => {
    deps.refused({ name, port, rule });
    client.resetAndDestroy();
  };
  // pipeline destroys both ends when either ends or fails, so no socket outlives its peer.
  await Promise.all([forward(client, server, { name, port, head, refused }), pipeline(server, client)]).catch(
    () => undefined,
  );
  client.destroy();
  server.destroy();
  spliced.delete(connection);
}
