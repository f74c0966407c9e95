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

describe.skipIf(!tools.run || !isRoot())("the host-side network policy of a sandbox", () => {
  const host = new TestHost("10.222");
  let tcp: Server;
  const tcpSeen: string[] = [];
  const udp = createSocket("udp4");
  const udpSeen: string[] = [];
  /** The sandbox's slot (host-wide, so not always 1) and its link's host end. */
  let slot = 0;
  let hostAddress = "";

  beforeAll(async () => {
    expect((await host.run(["up", "pol", "-t", "basic", "-w", host.workspace("pol")])).exitCode).toBe(0);
    slot = await host.slotOf("pol");
    hostAddress = `10.222.${slot}.1`;
    tcp = createServer((socket) => {
      tcpSeen.push(String(socket.remoteAddress));
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(47001, hostAddress, resolve));
    udp.on("message", (_message, remote) => udpSeen.push(remote.address));
    await new Promise<void>((resolve) => udp.bind(47002, hostAddress, resolve));
    // The sandbox's own table goes first (removed with the powers of root in its namespace), so
    // every test below meets the host's table alone, and shows that flushing inside changes nothing.
    const { execa } = await import("execa");
    await execa("ip", ["netns", "exec", `f${slot}`, "nft", "flush", "ruleset"]);
    expect((await execa("ip", ["netns", "exec", `f${slot}`, "nft", "list", "ruleset"])).stdout.trim()).toBe("");
  });
  afterAll(async () => {
    tcp.close();
    udp.close();
    await host.cleanup();
  });

  /**
   * Tries a TCP connection from inside with bash's /dev/tcp (sh is dash, which has none); prints
   * "open" or "refused", and how long it took. Host and port arrive as arguments, not as text.
   */
  const connect = async (port: number): Promise<[string, number]> => {
    const script =
      'start=$(date +%s%N); (echo hi > "/dev/tcp/$1/$2") 2>/dev/null && r=open || r=refused; echo $r $(( ($(date +%s%N) - start) / 1000000 ))';
    const result = await host.run(["exec", "pol", "--", "bash", "-c", script, "bash", hostAddress, String(port)]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [outcome = "", ms = ""] = result.stdout.trim().split(" ");
    return [outcome, Number(ms)];
  };

  it("lets the probe through where the host allows it: the sandbox's own DNS filter (a control)", async () => {
    expect((await connect(53))[0]).toBe("open");
  });

  it("refuses the sandbox's connections to the host's own services at once (TCP reset)", async () => {
    const [result, ms] = await connect(47001);
    expect(result).toBe("refused");
    expect(Number(ms)).toBeLessThan(1000);
    expect(tcpSeen).toEqual([]);
  });

  it("drops the sandbox's UDP to the host, which never sees it", async () => {
    // A datagram from the host itself arrives (the server works); the sandbox's never does.
    const control = createSocket("udp4");
    await new Promise<void>((resolve) => control.send("hi", 47002, hostAddress, () => resolve()));
    control.close();
    const sent = await host.run([
      "exec",
      "pol",
      "--",
      "bash",
      "-c",
      'echo hi > "/dev/udp/$1/$2"; sleep 0.2',
      "bash",
      hostAddress,
      "47002",
    ]);
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(udpSeen).toEqual([hostAddress]);
  });

  it("is a table of the host that goes with the sandbox", async () => {
    const { execa } = await import("execa");
    expect((await execa("nft", ["list", "table", "inet", `forage_f${slot}`])).stdout).toContain(
      `iifname "ve-f${slot}"`,
    );
    expect((await host.run(["down", "pol"])).exitCode).toBe(0);
    expect((await execa("nft", ["list", "table", "inet", `forage_f${slot}`], { reject: false })).exitCode).not.toBe(0);
  });
});
