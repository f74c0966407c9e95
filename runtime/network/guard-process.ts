import { spawn } from "node:child_process";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.js";
import { sandboxNetworkPath } from "../core/paths.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { GuardSpec } from "./guard-spec.js";
import type { GuardServices } from "../../generator/policy/network/host-table.js";

/** A running guard as the metadata records it. */
export interface GuardHandle extends GuardServices {
  pid: number;
}

const readyTimeoutMs = 10_000;
const reloadTimeoutMs = 5_000;
export const guardLogName = "guard.log";

function guardMain(): string {
  return join(packageRoot(), "dist/runtime/network/guard-main.js");
}

/**
 * Starts the sandbox's network guard (guard.ts) as its own process group, so it outlives the
 * forage-ctl (or daemon) that started it, as the container does. Resolves once it listens. Its
 * log goes to the sandbox's network directory (made by prepareNetwork), readable by root only.
 */
export async function startGuard(context: RuntimeContext, metadata: SandboxMetadata, namespace: string | undefined): Promise<GuardHandle> {
  const directory = sandboxNetworkPath(context.paths, metadata.name);
  const log = await open(join(directory, guardLogName), "a", 0o600);
  const spec: GuardSpec = {
    sandbox: metadata.name,
    slot: metadata.slot,
    paths: context.paths,
    base: context.settings.host.network.base,
    upstream: context.settings.host.network.upstreamResolver,
    namespace: namespace ?? null,
    admitPrivate: context.settings.host.network.admitPrivate,
  };
  const child = spawn(process.execPath, [guardMain(), JSON.stringify(spec)], { detached: true, stdio: ["ignore", "pipe", log.fd] });
  await log.close();
  try {
    const services = await new Promise<GuardServices>((resolve, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`it did not start in ${readyTimeoutMs / 1000} s`)), readyTimeoutMs);
      child.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split("\n")[0] ?? "";
        if (!output.includes("\n")) return;
        clearTimeout(timer);
        const parsed = readyLine(line);
        if (parsed !== null) resolve(parsed);
        else reject(new Error(`unexpected ready line ${JSON.stringify(line.slice(0, 200))}`));
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`it exited with ${String(code)}`));
      });
      child.on("error", reject);
    });
    child.stdout?.destroy();
    child.unref();
    return { pid: child.pid ?? 0, ...services };
  } catch (error) {
    child.kill("SIGKILL");
    const logged = await readFile(join(directory, guardLogName), "utf8").catch(() => "");
    const tail = logged.trim().split("\n").slice(-3).join("\n");
    throw new SandboxError(`the network guard of ${metadata.name} failed: ${(error as Error).message}${tail === "" ? "" : `\n${tail}`}`, "container");
  }
}

/** The guard's ports from its ready line, or null when the line is anything else. */
function readyLine(line: string): GuardServices | null {
  try {
    const { ready, dnsPort, tlsPort, httpPort } = JSON.parse(line) as { ready?: unknown } & Partial<Record<keyof GuardServices, unknown>>;
    const ports = [dnsPort, tlsPort, httpPort];
    if (ready !== true || !ports.every((port) => typeof port === "number" && Number.isInteger(port) && port > 0 && port < 65536)) return null;
    return { dnsPort: dnsPort as number, tlsPort: tlsPort as number, httpPort: httpPort as number };
  } catch {
    return null;
  }
}

/** True when `guard` is this sandbox's guard process (not a reused pid). */
export async function isOurGuard(guard: GuardHandle | null, sandbox: string): Promise<boolean> {
  if (guard === null) return false;
  const cmdline = await readFile(`/proc/${guard.pid}/cmdline`, "utf8").catch(() => "");
  const [, script, spec] = cmdline.split("\0");
  if (script !== guardMain() || spec === undefined) return false;
  try {
    return (JSON.parse(spec) as GuardSpec).sandbox === sandbox;
  } catch {
    return false;
  }
}

/**
 * Stops the guard (SIGTERM; it closes its sockets and exits). Not waited for: its ports are its
 * own, so a new guard for the same slot never collides with it, and a guard that hung exits by
 * itself once the link is removed. A guard already gone is fine.
 */
export async function stopGuard(guard: GuardHandle | null, sandbox: string): Promise<void> {
  if (guard === null || !(await isOurGuard(guard, sandbox))) return;
  process.kill(guard.pid, "SIGTERM");
}

/**
 * Tells the guard its policy changed (it re-reads the metadata and refills the allowed sets of
 * the table just loaded), and waits until it has (its status counts reloads), so the change is
 * whole when forage-ctl returns. False when the guard is not running or did not answer in time.
 */
export async function reloadGuard(guard: GuardHandle | null, sandbox: string, statusFile: string): Promise<boolean> {
  if (guard === null || !(await isOurGuard(guard, sandbox))) return false;
  const reloads = async (): Promise<number> => (JSON.parse(await readFile(statusFile, "utf8")) as { reloads?: number }).reloads ?? 0;
  const before = await reloads().catch(() => 0);
  process.kill(guard.pid, "SIGHUP");
  for (let waited = 0; waited < reloadTimeoutMs; waited += 20) {
    if ((await reloads().catch(() => before)) > before) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
