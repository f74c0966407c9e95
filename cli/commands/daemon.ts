import { Option, type Command } from "commander";
import { callDaemon } from "../../runtime/daemon/client.js";
import { rootSocketPath, socketPath } from "../../runtime/daemon/protocol.js";
import { gatewaySocketPath } from "../../runtime/daemon/gateway-socket.js";
import { dirname } from "node:path";
import { checkAll } from "../../runtime/sandbox/health.js";
import { holdLock } from "../../runtime/state/lock.js";
import { loadRuntime } from "../runtime-context.js";

export function registerDaemon(program: Command): void {
  program
    .command("daemon")
    .description("Run the privileged daemon that serves sandbox commands to the configured user (foreground; root)")
    .option("--stop", "ask a running daemon to exit (sandboxes keep running)")
    .addOption(
      new Option(
        "--gateway-user <name>",
        "also serve the SSH gateway's account (forage-ctl gateway) on its own socket",
      ).env("FORAGE_GATEWAY_USER"),
    )
    .addHelpText(
      "after",
      `
The daemon listens on ${socketPath()} (FORAGE_RUN_DIR overrides the directory), owned by the
configured user with mode 0600: that user runs forage-ctl without sudo; nobody else but root can
connect. Root's own commands (up, down, start, stop, reset, exec, shell, attach) go to
${rootSocketPath()}, root's alone, when the daemon serves the same settings file with the same
build: they run there as they would in forage-ctl itself, settings read afresh, without loading
the toolchain first. Sandboxes are not its children: stopping or restarting it leaves them running, and it
picks them up again from state.
It follows its settings file: an edit counts for the next command (a stat per command; only a
changed file is read again, a TypeScript config as the configured user). An edit with errors
keeps the last good settings, and every command warns with its errors until it is fixed. user,
stateDir, network.base, monitor, approvals and proxy's own settings stay as at its start; a
running sandbox keeps its limits, mounts and agents until its next start (README: "Edits to the
settings file").
It also runs the API proxy once an agent uses auth "proxy" or "placeholder" (or an oauth login),
and only then; SIGHUP reloads the proxy's keys.
Settings: --config, else FORAGE_CONFIG, else ./forage.config.ts, ./forage.yaml or ./forage.json in
the current directory, else /etc/forage/forage.json (the NixOS service sets FORAGE_CONFIG to it).
\`forage-ctl up\` run as root starts one with its own settings file when none answers.
With --gateway-user NAME (or FORAGE_GATEWAY_USER) it also listens on ${gatewaySocketPath()},
owned by that account, mode 0600: the SSH gateway (forage-ctl gateway as its ForceCommand) may
list, create, remove and attach to sandboxes there, within the configured user's limits.
On NixOS the module runs it as a service; on another systemd distribution \`sudo forage-ctl service install\`
installs one (forage-ctl service --help).`,
    )
    .action(async (options: { stop?: boolean; gatewayUser?: string }) => {
      if (options.stop === true) {
        await callDaemon("shutdown", {});
        return void process.stdout.write("daemon stopping\n");
      }
      const { context, file } = await loadRuntime(program.opts<{ config?: string }>().config);
      // One daemon per run directory: a second one (two `up`s racing to start it) steps aside.
      const release = await holdLock(`${dirname(socketPath())}/daemon.lock`);
      if (release === undefined) {
        // Not a success: a service manager must see that this daemon did not start.
        process.exitCode = 1;
        return void process.stderr.write("forage-ctl: a daemon is already running for this run directory\n");
      }
      const { serveDaemon } = await import("../../runtime/daemon/server.js");
      const log = (line: string): void =>
        void process.stderr.write(`${new Date().toISOString()} forage-daemon: ${line}\n`);
      const sockets = {
        user: socketPath(),
        root: rootSocketPath(),
        gateway: { path: gatewaySocketPath(), user: options.gatewayUser },
      };
      // The CLI's own entry: a TypeScript config is read again by running it as the user (settings-json).
      const server = await serveDaemon(context, sockets, log, file, process.argv[1] ?? "");
      // SIGHUP reloads the proxy's keys; without this handler it would end the daemon.
      process.on(
        "SIGHUP",
        () =>
          void server.reloadProxyKeys().then(
            () => log("proxy keys reloaded"),
            (error: unknown) => log(`proxy keys not reloaded: ${String(error)}`),
          ),
      );
      const { monitor } = context.settings.host;
      // The health monitor of the config at the daemon's start (monitor.enable), run by the daemon itself; a round still
      // running (a restart takes a while) is not joined by the next.
      let checking = false;
      const timer = monitor.enable
        ? setInterval(() => {
            if (checking) return;
            checking = true;
            void checkAll(server.contextNow(), monitor.autoRestart)
              .then((reports) => reports.forEach((report) => log(`health: ${report}`)))
              .finally(() => (checking = false));
          }, monitor.interval * 1000)
        : undefined;
      await new Promise<void>((resolve) => {
        for (const signal of ["SIGTERM", "SIGINT"] as const)
          process.once(signal, () => void server.close().then(resolve));
      });
      clearInterval(timer);
      release();
      log("stopped (sandboxes keep running)");
      // Commands clients were running in sandboxes belong to the sandboxes, not to the daemon.
      process.exit(0);
    });
}
