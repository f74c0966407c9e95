import { runCommand } from "../../core/run-command.js";
import { SandboxError } from "../../core/errors.js";

/** The systemd unit NixOS runs a declarative or extra-container container as. */
export function containerUnit(containerName: string): string {
  return `container@${containerName}.service`;
}

/** Runs one of the host's container tools; a failure is a container error with what it said. */
export async function runTool(program: string, args: string[], doing: string): Promise<string> {
  const result = await runCommand(program, args, { reject: false, timeoutMs: 600_000 }).catch((error: Error) => ({
    exitCode: 127,
    stdout: "",
    stderr: error.message,
  }));
  if (result.exitCode !== 0) {
    const said = String(result.stderr).trim().split("\n").slice(-5).join("\n");
    throw new SandboxError(
      `could not ${doing}: ${program} ${args[0] ?? ""} exited with ${String(result.exitCode)}${said === "" ? "" : `:\n${said}`}`,
      "container",
    );
  }
  return String(result.stdout);
}

/** True while the container's unit is active. */
export async function isUnitActive(containerName: string): Promise<boolean> {
  const result = await runCommand("systemctl", ["is-active", "--quiet", containerUnit(containerName)], {
    reject: false,
  }).catch(() => undefined);
  return result?.exitCode === 0;
}

/** The unit's main process (systemd-nspawn), or null when it has none. */
export async function unitMainPid(containerName: string): Promise<number | null> {
  const pid = Number(
    (
      await runTool(
        "systemctl",
        ["show", "--property=MainPID", "--value", containerUnit(containerName)],
        "read the container's pid",
      )
    ).trim(),
  );
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** systemd properties for a template's resourceLimits (applied to the whole container unit). */
export function limitProperties(limits: {
  cpuQuota: string | null;
  memoryMax: string | null;
  tasksMax: number | null;
}): string[] {
  return [
    ...(limits.tasksMax === null ? [] : [`TasksMax=${limits.tasksMax}`]),
    ...(limits.memoryMax === null ? [] : [`MemoryMax=${limits.memoryMax}`]),
    ...(limits.cpuQuota === null ? [] : [`CPUQuota=${limits.cpuQuota}`]),
  ];
}
