// One bench client (network-client.mjs `turns`) kept running in a sandbox's network namespace,
// making connections in batches when told. Two of them take turns, batch by batch, so a pause or
// a slow spell of this shared machine falls on both sides of a comparison alike.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export class TurnClient {
  private readonly child: ChildProcess;
  private readonly answers: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];

  constructor(namespace: string, clientScript: string, address: string, port: number) {
    // Every turn client on the same CPU: two clients the scheduler placed apart (one beside the
    // server, one not) would differ by where they run rather than by what they measure.
    this.child = spawn(
      "taskset",
      ["-c", "0", "ip", "netns", "exec", namespace, process.execPath, clientScript, "turns", address, String(port)],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    if (this.child.stdout === null) throw new Error("the bench client has no output");
    createInterface({ input: this.child.stdout }).on("line", (line) => this.answers.shift()?.resolve(line));
    // One listener for the client's life (not one per batch): an exit fails the batch waiting.
    this.child.once("exit", (code) => {
      for (const answer of this.answers.splice(0))
        answer.reject(new Error(`the bench client exited (${String(code)})`));
    });
  }

  /** Makes `count` sequential connections; the milliseconds they took. */
  async batch(count: number): Promise<number> {
    if (this.child.exitCode !== null) throw new Error(`the bench client exited (${this.child.exitCode})`);
    const line = await new Promise<string>((resolve, reject) => {
      this.answers.push({ resolve, reject });
      this.child.stdin?.write(`${count}\n`);
    });
    const result = JSON.parse(line) as { ms?: number; error?: string };
    if (result.ms === undefined) throw new Error(`bench client failed: ${result.error ?? line}`);
    return result.ms;
  }

  close(): void {
    this.child.stdin?.end();
  }
}
