import { readFile } from "node:fs/promises";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { listeningInodes, portHolder } from "../../../../runtime/gates/network/port-holder.js";
import { PortForwarder } from "../../../../runtime/gates/network/port-forwarder.js";
import { freePort } from "../../../support/free-port.js";

/*
 * The forwarder with real sockets on loopback: the "sandbox" is a server on 127.0.0.1 (the
 * integration test, test/integration/port.test.ts, forwards into a real sandbox).
 */

const servers: Server[] = [];
const forwarders: PortForwarder[] = [];
afterEach(() => {
  for (const forwarder of forwarders.splice(0)) forwarder.close();
  for (const server of servers.splice(0)) server.close();
});

/** A server on 127.0.0.1 that answers "got <what it read>" once its client has ended. */
async function echoAfterEnd(host = "127.0.0.1", port = 0): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    let read = "";
    socket.on("data", (chunk: Buffer) => (read += chunk.toString()));
    socket.on("end", () => socket.end(`got ${read}`));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}

const portOf = (server: Server): number => (server.address() as AddressInfo).port;

/** Sends `text`, ends, and reads everything until the forward closes (or the error code). */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
    socket.on("close", () => resolve(answer));
    socket.end(text);
  });
}

function forwarder(): PortForwarder {
  const made = new PortForwarder("127.0.0.1");
  forwarders.push(made);
  return made;
}

describe("a sandbox's port forwards", () => {
  it("relays a connection both ways, and the client's end of its request still gets the whole answer", async () => {
    const sandbox = await echoAfterEnd();
    const hostPort = await freePort();
    expect(await forwarder().sync([{ hostPort, port: portOf(sandbox) }])).toEqual([
      { hostPort, port: portOf(sandbox), open: true, error: null },
    ]);
    expect(await exchange(hostPort, "GET / HTTP/1.0\r\n\r\n")).toBe("got GET / HTTP/1.0\r\n\r\n");
  });

  it("listens on 127.0.0.1 alone: its socket's bound address is loopback, never a wildcard", async () => {
    const sandbox = await echoAfterEnd();
    const hostPort = await freePort();
    await forwarder().sync([{ hostPort, port: portOf(sandbox) }]);
    const table = await readFile("/proc/net/tcp", "utf8");
    const bound = table
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === "0A" && Number.parseInt(fields[1]?.split(":")[1] ?? "", 16) === hostPort)
      .map((fields) => fields[1]?.split(":")[0]);
    expect(bound).toEqual(["0100007F"]);
    const six = await readFile("/proc/net/tcp6", "utf8").catch(() => "");
    expect(listeningInodes(six, hostPort)).toEqual([]);
  });

  it("reports a host port in use (and who holds it), and opens the others anyway", async () => {
    const sandbox = await echoAfterEnd();
    const taken = await echoAfterEnd("127.0.0.1");
    const free = await freePort();
    const states = await forwarder().sync([
      { hostPort: portOf(taken), port: portOf(sandbox) },
      { hostPort: free, port: portOf(sandbox) },
    ]);
    expect(states).toEqual([
      { hostPort: portOf(taken), port: portOf(sandbox), open: false, error: "EADDRINUSE" },
      { hostPort: free, port: portOf(sandbox), open: true, error: null },
    ]);
    expect(await portHolder(portOf(taken))).toMatch(new RegExp(`^pid ${process.pid} \\(.*node`));
  });

  it("closes a forward no longer wanted and cuts its open connections; the rest stay", async () => {
    const quiet = createServer(() => undefined); // holds connections open, says nothing
    servers.push(quiet);
    await new Promise<void>((resolve) => quiet.listen(0, "127.0.0.1", resolve));
    const [first, second] = [await freePort(), await freePort()];
    const forwards = forwarder();
    await forwards.sync([
      { hostPort: first, port: portOf(quiet) },
      { hostPort: second, port: portOf(quiet) },
    ]);
    const held = connect({ host: "127.0.0.1", port: first });
    await new Promise((resolve) => held.once("connect", resolve));
    const cut = new Promise((resolve) => held.once("close", resolve));
    expect(await forwards.sync([{ hostPort: second, port: portOf(quiet) }])).toEqual([
      { hostPort: second, port: portOf(quiet), open: true, error: null },
    ]);
    await cut;
    expect(await exchange(first, "x")).toBe("error ECONNREFUSED");
    forwards.close();
    expect(await exchange(second, "x")).toBe("error ECONNREFUSED");
  });

  it("changes a host port's sandbox port by closing and opening it again", async () => {
    const [one, two] = [await echoAfterEnd(), await echoAfterEnd()];
    const hostPort = await freePort();
    const forwards = forwarder();
    await forwards.sync([{ hostPort, port: portOf(one) }]);
    expect(await forwards.sync([{ hostPort, port: portOf(two) }])).toEqual([
      { hostPort, port: portOf(two), open: true, error: null },
    ]);
    expect(await exchange(hostPort, "y")).toBe("got y");
  });

  it("takes syncs one at a time: two at once both find a new forward open", async () => {
    const sandbox = await echoAfterEnd();
    const hostPort = await freePort();
    const forwards = forwarder();
    const wanted = [{ hostPort, port: portOf(sandbox) }];
    const [first, second] = await Promise.all([forwards.sync(wanted), forwards.sync(async () => wanted)]);
    expect([first, second]).toEqual([
      [{ hostPort, port: portOf(sandbox), open: true, error: null }],
      [{ hostPort, port: portOf(sandbox), open: true, error: null }],
    ]);
  });

  it("leaves nothing listening when it is closed while a sync still opens a forward", async () => {
    const hostPort = await freePort();
    const forwards = forwarder();
    const pending = forwards.sync([{ hostPort, port: 1 }]);
    forwards.close();
    expect((await pending)[0]).toMatchObject({ open: false });
    expect(await exchange(hostPort, "x")).toBe("error ECONNREFUSED");
  });

  it("closes the client's connection when nothing listens in the sandbox", async () => {
    const [hostPort, nothing] = [await freePort(), await freePort()];
    await forwarder().sync([{ hostPort, port: nothing }]);
    expect(await exchange(hostPort, "hello")).toMatch(/^(|error ECONNRESET)$/);
  });
});

describe("who holds a port, from /proc/net/tcp", () => {
  const table = [
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
    "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0",
    "   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4343 1 0 100 0 0 10 0",
    "   2: 0200007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4444 1 0 100 0 0 10 0",
    "   3: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 4545 1 0 100 0 0 10 0",
    "   4: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4646 1 0 100 0 0 10 0",
  ].join("\n");

  it("finds the listeners on 127.0.0.1 and the wildcard, not on another loopback address, not a connection, not another port", () => {
    expect(listeningInodes(table, 8080)).toEqual(["4242", "4343"]);
  });

  it("finds IPv6 wildcards and IPv4-mapped loopback, which a bind of 127.0.0.1 collides with", () => {
    const six = [
      "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5151 1",
      "   1: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5252 1",
      "   2: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5353 1",
    ].join("\n");
    expect(listeningInodes(six, 8080)).toEqual(["5151", "5252"]);
  });
});
