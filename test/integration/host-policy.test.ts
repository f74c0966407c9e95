import { createSocket } from "node:dgram";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * The policy on the host end of a sandbox's veth. The only peer here is the host itself, at the
 * sandbox link's own host address: a TCP and a UDP server the test opens there, which the
 * sandbox must not reach. No packet goes anywhere else.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");
const hostAddress = "10.222.1.1";

describe.skipIf(!tools.run || !isRoot())("the host-side network policy of a sandbox", () => {
  const host = new TestHost("10.222");
  let tcp: Server;
  const tcpSeen: string[] = [];
  const udp = createSocket("udp4");
  const udpSeen: string[] = [];

  beforeAll(async () => {
    expect((await host.run(["up", "pol", "-t", "basic", "-w", host.workspace("pol")])).exitCode).toBe(0);
    tcp = createServer((socket) => {
      tcpSeen.push(String(socket.remoteAddress));
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(47001, hostAddress, resolve));
    udp.on("message", (_message, remote) => udpSeen.push(remote.address));
    await new Promise<void>((resolve) => udp.bind(47002, hostAddress, resolve));
  });
  afterAll(async () => {
    tcp.close();
    udp.close();
    await host.cleanup();
  });

  /** Tries a TCP connection from inside; prints "open" or the error, and how long it took. */
  const connect = "start=$(date +%s%N); (echo hi > /dev/tcp/HOST/47001) 2>/dev/null && r=open || r=refused; echo $r $(( ($(date +%s%N) - start) / 1000000 ))".replace("HOST", hostAddress);

  it("refuses the sandbox's connections to the host's own services at once (TCP reset)", async () => {
    const [result, ms] = (await host.sh("pol", connect)).trim().split(" ");
    expect(result).toBe("refused");
    expect(Number(ms)).toBeLessThan(1000);
    expect(tcpSeen).toEqual([]);
  });

  it("drops the sandbox's UDP to the host, which never sees it", async () => {
    await host.sh("pol", `echo hi > /dev/udp/${hostAddress}/47002; sleep 0.2`);
    expect(udpSeen).toEqual([]);
  });

  it("holds against root inside the sandbox flushing its own ruleset and routes", async () => {
    const shell = await host.run(["shell", "pol"], "nft flush ruleset 2>/dev/null; ip route flush table main 2>/dev/null; exit 0\n");
    expect(shell.exitCode).toBe(0);
    expect((await host.sh("pol", connect)).split(" ")[0]).toBe("refused");
    expect(tcpSeen).toEqual([]);
  });

  it("is a table of the host that goes with the sandbox", async () => {
    const { execa } = await import("execa");
    expect((await execa("nft", ["list", "table", "inet", "forage_f1"])).stdout).toContain('iifname "ve-f1"');
    expect((await host.run(["down", "pol"])).exitCode).toBe(0);
    expect((await execa("nft", ["list", "table", "inet", "forage_f1"], { reject: false })).exitCode).not.toBe(0);
  });
});
