import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RuntimePaths } from "../../core/paths.js";
import type { GvisorStack } from "../../../generator/config/runtime-names.js";
import { bundlePath, type Runsc } from "./runsc.js";

/*
 * What a sandbox was started with, written beside its bundle: the platform (for status) and the
 * network stack (every later runsc call must know where runsc's control socket is: netstack.ts).
 * Gone with the bundle at stop.
 */

/** Records the platform and stack of a start. */
export async function recordStartedWith(paths: RuntimePaths, name: string, runsc: Runsc): Promise<void> {
  const bundle = bundlePath(paths, name);
  await writeFile(join(bundle, "platform"), `${runsc.platform}\n`, { mode: 0o644 });
  await writeFile(join(bundle, "stack"), `${runsc.stack}\n`, { mode: 0o644 });
}

/** The platform a sandbox was started on, or undefined when it is not started. */
export async function startedPlatform(paths: RuntimePaths, name: string): Promise<string | undefined> {
  const text = await readFile(join(bundlePath(paths, name), "platform"), "utf8").catch(() => "");
  return /^[a-z]+\n$/.test(text) ? text.trim() : undefined;
}

/**
 * The network stack a sandbox was started with, or undefined when it is not started. A sandbox
 * started before stacks were recorded ran on the host's.
 */
export async function startedStack(paths: RuntimePaths, name: string): Promise<GvisorStack | undefined> {
  const bundle = bundlePath(paths, name);
  const text = await readFile(join(bundle, "stack"), "utf8").catch(() => undefined);
  if (text === "sandbox\n") return "sandbox";
  if (text === "host\n") return "host";
  return (await startedPlatform(paths, name)) === undefined ? undefined : "host";
}
