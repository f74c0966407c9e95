import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliPath, repoRoot } from "../cli/run-cli.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { installStandInSystem } from "./host-user.js";
import { TmuxTerminal } from "./tmux-terminal.js";

/*
 * Nothing of the caller's crosses into a sandbox: its terminal, its descriptors, its environment.
 * Root's terminal is a door: a process inside a sandbox that holds it (as a descriptor or as its
 * controlling terminal) can push input into it with TIOCSTI, and root's shell runs that input once
 * forage-ctl returns. Each attack is made from root's real shell, on a real terminal (a tmux pane
 * on the host), against a real sandbox of each runtime that runs here (host root, and a NixOS
 * system: the stand-in of test/nix/stand-in), in process and through the daemon; its control makes the
 * same attack with the same program as the agent's uid on that terminal, without the sandbox in
 * between, and the host's shell runs what it pushed.
 */
/** A file's text, or "" when it cannot be read (a process gone meanwhile). */
function readFileOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

const tools = toolsAvailable("systemd-nspawn", "tmux", "gcc", "setpriv", "bash", "nix-build", "busybox");

/** One sandbox per runtime that runs here; the NixOS one's template has a prebuilt (stand-in) system. */
const sandboxes = [
  { name: "hostroot", template: "basic", runtime: "nspawn" },
  { name: "nixroot", template: "nixbasic", runtime: "nspawn-nix" },
  // gVisor's terminals are its own kernel's, entered through runsc exec: the same doors to shut.
  ...(toolsAvailable("runsc").run ? [{ name: "gvisorroot", template: "basic", runtime: "gvisor" }] : []),
] as const;

describe.skipIf(!tools.run || !isRoot())(
  "nothing of the caller's reaches a sandbox (terminal, descriptors, environment), each attack with its control",
  () => {
    const host = new TestHost("10.210", "nobody", "\n  nixbasic:\n    extends: basic\n");
    const terminal = new TmuxTerminal(host.dir);
    const inject = join(host.dir, "tty-inject");
    let legacyTiocsti: string | undefined;
    let attempt = 0;

    /** A marker file the pushed command would make on the host, as root. */
    const marker = (name: string): string => join(host.dir, `pwned-${name}`);
    const cli = (args: string): string => `${process.execPath} ${cliPath} --config ${host.config} ${args}`;

    /**
     * Types `line` into root's shell (and does `meanwhile` while it runs), then waits until a later
     * command has run: whatever was pushed into the terminal's input during `line` has run too.
     */
    async function inRootShell(line: string, meanwhile?: () => Promise<void>): Promise<string> {
      attempt += 1;
      await terminal.type(`${line}; echo E-N-D-${attempt} | tr -d -`);
      await terminal.keys("Enter");
      await meanwhile?.();
      await terminal.waitFor(new RegExp(`^END${attempt}$`, "m"), 60_000);
      await terminal.type(`echo C-H-K-${attempt} | tr -d -`);
      await terminal.keys("Enter");
      return terminal.waitFor(new RegExp(`^CHK${attempt}$`, "m"));
    }

    beforeAll(async () => {
      // The host's own switch for unprivileged TIOCSTI: the attack needs it on (Debian 12's default).
      legacyTiocsti = readFileSync("/proc/sys/dev/tty/legacy_tiocsti", "utf8").trim();
      if (legacyTiocsti !== "1") writeFileSync("/proc/sys/dev/tty/legacy_tiocsti", "1");
      // Static: it runs in a NixOS root too, which has none of the host's libraries.
      execFileSync("gcc", ["-static", "-O2", "-o", inject, join(repoRoot, "test/integration/tty-inject.c")]);
      installStandInSystem(host.dir, host.extraEnv, ["nixbasic"]);
      for (const sandbox of sandboxes) {
        const workspace = host.workspace(sandbox.name);
        copyFileSync(inject, join(workspace, "tty-inject"));
        // The agent's watcher: when a client attaches to its tmux session, it tells that client to run the injector.
        writeFileSync(
          join(workspace, "watch.sh"),
          '#!/bin/sh\nwhile [ -z "$(tmux list-clients)" ]; do sleep 0.1; done\nexec tmux detach-client -E "/workspace/tty-inject \'touch $1\'"\n',
        );
        for (const file of ["tty-inject", "watch.sh"]) {
          chmodSync(join(workspace, file), 0o755);
          chownSync(join(workspace, file), agentUid, agentUid);
        }
        const up = await host.run([
          "up",
          sandbox.name,
          "-t",
          sandbox.template,
          "--runtime",
          sandbox.runtime,
          "-w",
          workspace,
        ]);
        expect(up.exitCode, up.stderr).toBe(0);
      }
      await terminal.start(
        ["bash", "--norc", "--noprofile"],
        { ...host.env, HOME: "/root", TERM: "xterm-256color", PS1: "# " },
        host.dir,
      );
    }, 180_000);

    afterAll(async () => {
      await terminal.stop();
      if (legacyTiocsti !== undefined && legacyTiocsti !== "1")
        writeFileSync("/proc/sys/dev/tty/legacy_tiocsti", legacyTiocsti);
      await host.cleanup();
    });

    it("control: the injector, as the agent's uid on root's terminal, makes root's shell run what it pushed", async () => {
      const asAgent = `setpriv --reuid=${agentUid} --regid=${agentUid} --clear-groups -- ${inject}`;
      await inRootShell(`${asAgent} 'touch ${marker("control-stdin")}'`);
      await inRootShell(`${asAgent} 'touch ${marker("control-tty")}' </dev/null`);
      expect(existsSync(marker("control-stdin"))).toBe(true);
      expect(existsSync(marker("control-tty"))).toBe(true);
    });

    for (const via of ["daemon", "in-process"] as const) {
      describe(`through ${via === "daemon" ? "the daemon" : "root's own forage-ctl (no daemon)"}`, () => {
        beforeAll(async () => {
          // up started the daemon; the second round runs with it stopped, so forage-ctl does the work itself.
          if (via === "in-process") expect((await host.run(["daemon", "--stop"])).exitCode).toBe(0);
        });

        for (const { name, runtime } of sandboxes) {
          const tag = (attack: string): string => `${attack}-${via}-${name}`;
          const plantWatcher = async (attack: string): Promise<void> => {
            const planted = await host.run([
              "exec",
              name,
              "--",
              "tmux",
              "new-window",
              "-d",
              "-t",
              "forage",
              "/workspace/watch.sh",
              marker(tag(attack)),
            ]);
            expect(planted.exitCode, planted.stderr).toBe(0);
          };

          it(`${name}: exec on root's terminal: the command's terminal is the sandbox's own, and TIOCSTI on it is refused`, async () => {
            const screen = await inRootShell(
              cli(`exec ${name} -- /workspace/tty-inject 'touch ${marker(tag("exec"))}'`),
            );
            expect(screen).toContain("refused: stdin: Operation not permitted");
            expect(existsSync(marker(tag("exec")))).toBe(false);
          });

          it(`${name}: exec without a terminal: the command has no controlling terminal (/dev/tty opens nothing)`, async () => {
            const screen = await inRootShell(
              `${cli(`exec ${name} -- /workspace/tty-inject 'touch ${marker(tag("pipe"))}'`)} </dev/null`,
            );
            // gVisor's kernel answers the open with EIO where Linux says ENXIO: either way nothing opens.
            expect(screen).toContain(
              `refused: /dev/tty: ${runtime === "gvisor" ? "Input/output error" : "No such device or address"}`,
            );
            expect(existsSync(marker(tag("pipe")))).toBe(false);
          });

          it(`${name}: attach: a tmux client told by the agent to run a command runs it on the sandbox's terminal, not root's`, async () => {
            await plantWatcher("attach");
            const screen = await inRootShell(cli(`attach ${name}`));
            // The watcher fired: the injector ran in place of the tmux client, and was refused there.
            expect(screen).toContain("refused: stdin: Operation not permitted");
            expect(existsSync(marker(tag("attach")))).toBe(false);
          });

          it(`${name}: pick: Enter attaches the same way, on the sandbox's terminal`, async () => {
            await plantWatcher("pick");
            // A cleared screen first: an earlier picker's list must not be taken for this one's.
            const screen = await inRootShell(`clear; ${cli("pick")}`, async () => {
              await terminal.waitFor((shown) => !shown.includes("Forage sandboxes"));
              await terminal.waitFor("Forage sandboxes", 30_000);
              await terminal.keys("/");
              await terminal.type(name);
              await terminal.keys("Enter");
              await terminal.waitFor(new RegExp(`› ${name} `));
              await terminal.keys("Enter");
              // The injector ends the attach; the list comes back, and q ends pick.
              await terminal.waitFor(
                new RegExp(
                  `refused: stdin[\\s\\S]*Forage sandboxes[\\s\\S]*(back from ${name}|could not attach to ${name})`,
                ),
                30_000,
              );
              await terminal.keys("q");
            });
            expect(screen).toContain("refused: stdin: Operation not permitted");
            expect(existsSync(marker(tag("pick")))).toBe(false);
          });
        }
      });
    }

    it("TIOCLINUX is refused by the filter (control: on the host the same call reaches the terminal, which answers it is no console)", async () => {
      const control = await inRootShell(
        `setpriv --reuid=${agentUid} --regid=${agentUid} --clear-groups -- ${inject} x linux`,
      );
      expect(control).toContain("refused: stdin: Inappropriate ioctl for device");
      for (const { name } of sandboxes)
        expect(await inRootShell(cli(`exec ${name} -- /workspace/tty-inject x linux`))).toContain(
          "refused: stdin: Operation not permitted",
        );
    });

    it("gives the sandbox's PID 1 none of the environment of the forage-ctl that started it (control: a host process that forage-ctl started has it)", async () => {
      // The sandbox's network guard host, which that forage-ctl started too (by its socket in this host's run directory).
      const guardSocket = join(host.dir, "run", "guard.sock");
      const guardHost = readdirSync("/proc").find(
        (pid) => /^\d+$/.test(pid) && readFileOr(`/proc/${pid}/cmdline`).split("\0").includes(guardSocket),
      );
      expect(guardHost).toBeDefined();
      expect(readFileOr(`/proc/${guardHost ?? 0}/environ`).split("\0")).toContain(`FORAGE_STATE_DIR=${host.stateDir}`);
      const inside = await host.run(["shell", "hostroot"], "tr '\\0' '\\n' < /proc/1/environ; echo end-of-environ\n");
      expect(inside.stdout).toContain("end-of-environ");
      expect(inside.stdout).not.toContain("FORAGE_");
      expect(inside.stdout).not.toContain(host.dir);
    });

    describe("descriptors", () => {
      const held = (): number => openSync(join(host.dir, "held-open"), "w");
      // ls's own listing of its descriptors (the NixOS stand-in has ls, not sed), read by `descriptors`.
      const listFds = ["ls", "-l", "/proc/self/fd"];
      /** Each descriptor of ls with what it refers to ("3 /…/held-open"), leaving out its own open directory. */
      const descriptors = (listing: string): string[] =>
        listing
          .split("\n")
          .flatMap((line) => /(\d+) -> (.*)$/.exec(line)?.slice(1, 3).join(" ") ?? [])
          .filter((line) => !/ \/proc\/\d+\/fd$/.test(line));
      const run = (argv: string[], fd: number): Promise<string[]> =>
        new Promise((resolve) => {
          const child = spawn(argv[0] ?? "sh", argv.slice(1), {
            env: host.env,
            stdio: ["ignore", "pipe", "inherit", fd],
          });
          let out = "";
          child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.once("close", () => resolve(descriptors(out)));
        });
      const numbers = (lines: string[]): string[] => lines.map((line) => line.split(" ")[0] ?? "");

      it("passes none but stdin, stdout and stderr in from forage-ctl (control: a host child of the same caller inherits fd 3)", async () => {
        const fd = held();
        expect(await run(listFds, fd)).toContain(`3 ${join(host.dir, "held-open")}`);
        for (const { name } of sandboxes)
          expect(
            numbers(
              await run([process.execPath, cliPath, "--config", host.config, "exec", name, "--", ...listFds], fd),
            ),
          ).toEqual(["0", "1", "2"]);
      });

      it("passes none in from a daemon that inherited one (control: the daemon holds it)", async () => {
        // Whatever daemon runs now gives way to one started with an extra descriptor.
        await host.run(["daemon", "--stop"]);
        await expect.poll(() => existsSync(join(host.dir, "run", "daemon-root.sock")), { timeout: 20_000 }).toBe(false);
        const fd = held();
        const logFile = join(host.dir, "daemon-with-fd.log");
        const log = openSync(logFile, "a");
        const daemon = spawn(process.execPath, [cliPath, "--config", host.config, "daemon"], {
          env: host.env,
          detached: true,
          stdio: ["ignore", log, log, fd],
        });
        daemon.unref();
        await expect.poll(() => readFileSync(logFile, "utf8"), { timeout: 30_000 }).toContain("listening on");
        expect(readlinkSync(`/proc/${daemon.pid}/fd/3`)).toBe(join(host.dir, "held-open"));
        for (const { name } of sandboxes) {
          const inside = await host.run(["exec", name, "--", ...listFds]);
          expect(inside.exitCode, inside.stderr).toBe(0);
          // Root's exec went to that daemon (it serves the same settings), which ran it.
          expect(readFileSync(logFile, "utf8")).toContain(`exec ${name}`);
          expect(numbers(descriptors(inside.stdout))).toEqual(["0", "1", "2"]);
        }
      });
    });
  },
);
