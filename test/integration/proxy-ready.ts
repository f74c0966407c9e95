import { setTimeout as sleep } from "node:timers/promises";
import type { TestHost } from "./harness.js";

/** Waits (up to 10 s) until the host's API proxy listens for every one of the sandboxes. */
export async function waitForProxy(host: TestHost, sandboxes: string[]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const status = JSON.parse((await host.run(["proxy", "--status", "--json"])).stdout || "null") as {
      sandboxes: { name: string }[];
    } | null;
    if (sandboxes.every((name) => status?.sandboxes.some((entry) => entry.name === name))) return;
    await sleep(100);
  }
  throw new Error(`the proxy never listened for ${sandboxes.join(", ")}`);
}
