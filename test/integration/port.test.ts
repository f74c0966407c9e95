import { chmodSync, readFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { agentUid, TestHost, type CliRun } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

/*
 * `forage-ctl port` into a real sandbox: a node HTTP server inside, fetched from the host's
 * 127.0.0.1. Every packet goes to loopback or to the sandbox's link (its own address, or the
 * host end from inside); where the forward listens is read from the socket tables
 * (/proc/net/tcp), never by sending anything to another address of the host.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");

/** Ports that were free on the host's loopback a moment ago (one listener each, closed again). */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer();
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** The addresses (as /proc/net/tcp{,6} spell them) of every listening socket on `port` in the host's namespace. */
function listeningOn(port: number): string[] {
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === "0A" && Number.parseInt(fields[1]?.split(":")[1] ?? "", 16) === port)
      .map((fields) => fields[1]?.split(":")[0] ?? ""),
  );
}

/** GET http://127.0.0.1:port/ over a raw socket: the answer's body, or the error's code. */
function fetchLoopback(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let answer = "";
    socket.setTimeout(5000, () => socket.destroy(new Error("timeout")));
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
    socket.on("close", () =>
      resolve(answer === "" ? "closed without an answer" : (answer.split("\r\n\r\n")[1] ?? answer)),
    );
    socket.end("GET / HTTP/1.0\r\nHost: dev\r\n\r\n");
  });
}

/** A server in the sandbox on 0.0.0.0:port, detached from the exec that starts it. */
const serverScript = (port: number): string =>
  `setsid node -e 'require("http").createServer((q, s) => s.end("hello from web")).listen(${port}, "0.0.0.0")' </dev/null >/dev/null 2>&1 & sleep 0.5`;

interface PortView {
  hostPort: number;
  port: number;
  hostAddress: string;
  state: string;
}

// On gVisor the server listens on gVisor's own stack: the forward reaches it through the veth as on nspawn.
describe.each(onEachRuntime(tools, { nspawn: "10.243", gvisor: "10.193" }))(
  "forage-ctl port on the $runtime runtime: a sandbox's server on the host's loopback only",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(prefix, "nobody", "", "", { runtime });
    const json = async <T>(args: string[]): Promise<T> => JSON.parse((await host.run(args)).stdout) as T;
    const ports = async (): Promise<PortView[]> => json<PortView[]>(["port", "web", "--json"]);
    let inside = 0; // the server's port in the sandbox, also its default host port
    let other = 0; // a host port forwarded to it explicitly
    let slot = 0;

    beforeAll(async () => {
      // Like /run: the configured user must be able to traverse to the daemon's socket.
      chmodSync(host.dir, 0o711);
      [inside = 0, other = 0] = await freePorts(2);
      const up = await host.run(["up", "web", "-t", "basic", "-w", host.workspace("web")]);
      expect(up.exitCode, up.stderr).toBe(0);
      slot = await host.slotOf("web");
      await host.sh("web", serverScript(inside));
    });
    afterAll(() => host.cleanup());

    it("forwards 127.0.0.1:PORT to the sandbox's PORT, listening on loopback and nowhere else", async () => {
      const opened = await host.run(["port", "web", String(inside)]);
      expect(opened, opened.stderr).toMatchObject({
        exitCode: 0,
        stdout: `web: 127.0.0.1:${inside} → ${prefix}.${slot}.2:${inside} (open)\n`,
      });
      expect(await fetchLoopback(inside)).toBe("hello from web");
      // One listener on the port in the host's namespace, bound to 127.0.0.1: no wildcard, no link address, no IPv6.
      expect(listeningOn(inside)).toEqual(["0100007F"]);
    });

    it("forwards HOSTPORT:PORT, and lists the forwards in port, ps and status (and their --json)", async () => {
      expect((await host.run(["port", "web", `${other}:${inside}`])).exitCode).toBe(0);
      expect(await fetchLoopback(other)).toBe("hello from web");
      const expected = [
        {
          hostPort: inside,
          port: inside,
          hostAddress: "127.0.0.1",
          sandboxAddress: `${prefix}.${slot}.2`,
          state: "open",
          error: null,
        },
        {
          hostPort: other,
          port: inside,
          hostAddress: "127.0.0.1",
          sandboxAddress: `${prefix}.${slot}.2`,
          state: "open",
          error: null,
        },
      ];
      expect(await ports()).toEqual(expected);
      const listed = (await host.run(["port", "web"])).stdout;
      expect(listed).toMatch(
        new RegExp(`^127\\.0\\.0\\.1:${other} +${prefix.replace(".", "\\.")}\\.${slot}\\.2:${inside} +open$`, "m"),
      );
      const forwards = [
        { hostPort: inside, port: inside },
        { hostPort: other, port: inside },
      ];
      expect(
        (await json<{ name: string; ports: unknown }[]>(["ps", "--json"])).find((view) => view.name === "web")?.ports,
      ).toEqual(forwards);
      expect((await json<{ ports: unknown }>(["status", "web", "--json"])).ports).toEqual(forwards);
      expect((await host.run(["ps"])).stdout).toContain(`127.0.0.1:${inside}→${inside},127.0.0.1:${other}→${inside}`);
    });

    it("gives the sandbox no way to the host: the forward is not on the host end of its link", async () => {
      const script = `node -e 'const s = require("net").connect(${other}, "${prefix}.${slot}.1"); s.on("connect", () => { console.log("connected"); process.exit(0); }); s.on("error", (e) => { console.log(e.code); process.exit(0); }); setTimeout(() => { console.log("timeout"); process.exit(0); }, 3000)'`;
      expect((await host.sh("web", script)).trim()).toMatch(/^(ECONNREFUSED|EHOSTUNREACH|timeout)$/);
    });

    it.each(["restricted", "full", "none"])(
      "reaches the server with the sandbox's network in mode %s",
      async (mode) => {
        const changed = await host.run(["network", "web", mode]);
        expect(changed.exitCode, changed.stderr).toBe(0);
        expect(await fetchLoopback(other)).toBe("hello from web");
      },
    );

    it("says who holds a host port that is taken, and changes nothing", async () => {
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
      const taken = (holder.address() as AddressInfo).port;
      try {
        const refused = await host.run(["port", "web", `${taken}:${inside}`]);
        expect(refused.exitCode).toBe(1);
        expect(refused.stderr).toMatch(
          new RegExp(
            `^forage-ctl: 127\\.0\\.0\\.1:${taken} cannot be opened for web: the port is in use by pid ${process.pid} \\(.*node`,
          ),
        );
        expect((await ports()).map((view) => view.hostPort)).toEqual([inside, other]);
      } finally {
        holder.close();
      }
    });

    it.each([
      [["port", "nosuch", "3000"], 2, 'sandbox "nosuch" does not exist'],
      [["port", "web", "80"], 64, "host port 80 is privileged"],
      [["port", "web", "http"], 64, "expected PORT or HOSTPORT:PORT"],
      [["port", "web", "0.0.0.0:8080:3000"], 64, "the host address is always 127.0.0.1"],
      [["port", "web", "--remove"], 64, "say which forward"],
      [["port", "web", "3000", "extra"], 64, "too many arguments"],
      [["port", "Web", "3000"], 64, "invalid sandbox name"],
      [["port", "web", "1:2", "--remove"], 1, "web has no forward 127.0.0.1:1 → 2"],
    ])("refuses %j with exit %i", async (args, exitCode, message) => {
      const result = await host.run(args);
      expect(result.exitCode).toBe(exitCode);
      expect(result.stderr).toContain(message);
    });

    it("lets the configured user open and close forwards through the daemon", async () => {
      const runAs = async (args: string[]): Promise<CliRun> => {
        const result = await execa(
          "setpriv",
          [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", process.execPath, cliPath, ...args],
          {
            cwd: repoRoot,
            env: { PATH: "/usr/bin:/bin", FORAGE_RUN_DIR: host.env.FORAGE_RUN_DIR ?? "" },
            extendEnv: false,
            reject: false,
            stripFinalNewline: false,
          },
        );
        return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) };
      };
      const [mine = 0] = await freePorts(1);
      expect(await runAs(["port", "web", `${mine}:${inside}`])).toMatchObject({ exitCode: 0, stderr: "" });
      expect(await fetchLoopback(mine)).toBe("hello from web");
      expect(await runAs(["port", "web", String(mine), "--remove"])).toMatchObject({
        exitCode: 0,
        stdout: `web: closed 127.0.0.1:${mine}\n`,
      });
      expect(listeningOn(mine)).toEqual([]);
    });

    it("keeps the forwards across stop, start and reset: closed while stopped, open again with the sandbox", async () => {
      expect((await host.run(["stop", "web", "-t", "1"])).exitCode).toBe(0);
      expect((await ports()).map((view) => view.state)).toEqual(["closed", "closed"]);
      expect(listeningOn(other)).toEqual([]);
      const refused = await host.run(["port", "web", String(inside + 1)]);
      expect(refused.exitCode).toBe(5);
      expect(refused.stderr).toContain('sandbox "web" is stopped');
      expect((await host.run(["start", "web"])).exitCode).toBe(0);
      expect((await ports()).map((view) => view.state)).toEqual(["open", "open"]);
      expect((await host.run(["reset", "web"])).exitCode).toBe(0);
      expect((await ports()).map((view) => view.state)).toEqual(["open", "open"]);
      expect(listeningOn(other)).toEqual(["0100007F"]);
      await host.sh("web", serverScript(inside));
      expect(await fetchLoopback(other)).toBe("hello from web");
    });

    it("loses the forwards with a dead guard host, and gets them back when the monitor restarts the guard", async () => {
      const shown = await json<{ guard: { pid: number } | null }>(["network", "web", "--json"]);
      const pid = shown.guard?.pid;
      if (pid === undefined) throw new Error("web has no guard to kill");
      process.kill(pid, "SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(listeningOn(other)).toEqual([]);
      expect((await ports()).map((view) => view.state)).toEqual(["closed", "closed"]);
      expect((await host.run(["monitor", "--once", "--auto-restart"])).stdout).toContain("guard restarted");
      expect(listeningOn(other)).toEqual(["0100007F"]);
      expect(await fetchLoopback(other)).toBe("hello from web");
    });

    it("--remove closes a forward: nothing listens on its host port any more", async () => {
      expect(await host.run(["port", "web", `${other}:${inside}`, "--remove"])).toMatchObject({
        exitCode: 0,
        stdout: `web: closed 127.0.0.1:${other}\n`,
      });
      expect(listeningOn(other)).toEqual([]);
      expect(await fetchLoopback(other)).toBe("error ECONNREFUSED");
      expect((await ports()).map((view) => view.hostPort)).toEqual([inside]);
    });

    it("down closes the sandbox's forwards", async () => {
      expect(listeningOn(inside)).toEqual(["0100007F"]);
      expect((await host.run(["down", "web", "-t", "1"])).exitCode).toBe(0);
      expect(listeningOn(inside)).toEqual([]);
      expect(await fetchLoopback(inside)).toBe("error ECONNREFUSED");
    });
  },
);
