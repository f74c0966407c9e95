// The parts of a benchmark that run in processes of their own (so a load generator, a proxy and an
// upstream do not share an event loop), and the median the benchmarks report.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * Starts `script` (a compiled bench part; by default this build's proxy-parts.js) with `args` and
 * waits for the one JSON line it prints once it serves.
 */
export async function startPart(
  args: string[],
  script = fileURLToPath(new URL("./proxy-parts.js", import.meta.url)),
): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve),
  );
  return { child, info: JSON.parse(line) as Record<string, unknown> };
}

/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
