import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SshAgentServer } from "../../../../runtime/gates/ssh-agent/ssh-agent-server.js";
import { TestApprovalQueue } from "../../../support/test-approval-queue.js";

/** What the sandbox's SSH agent does with bytes no ssh client sends: the sandbox may send anything. */
describe("the sandbox's SSH agent given malformed messages", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-agent-server-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers a message over 256 KiB, or one whose fields run past its end, with FAILURE and closes", async () => {
    const queue = new TestApprovalQueue();
    const server = new SshAgentServer({
      sandbox: "bad",
      keys: [],
      confirm: true,
      ask: queue.ask,
      record: () => undefined,
    });
    const socket = join(dir, "bad.sock");
    await server.listen(socket, process.getuid?.() ?? 0);
    const huge = Buffer.alloc(4);
    huge.writeUInt32BE(256 * 1024 + 1);
    expect(await exchange(socket, huge)).toEqual({ reply: "0000000105", closed: true });
    // SIGN_REQUEST whose key blob claims 1000 bytes.
    expect(await exchange(socket, Buffer.from("000000090d000003e8aabbccdd", "hex"))).toEqual({
      reply: "0000000105",
      closed: true,
    });
    // A well-formed request it does not serve (REMOVE_ALL): FAILURE, and the connection stays.
    expect(await exchange(socket, Buffer.from("0000000113", "hex"))).toEqual({ reply: "0000000105", closed: false });
    expect(queue.asks).toEqual([]);
    await server.close();
  });
});
/** Sends raw bytes to the agent: its reply (hex) and whether it closed the connection. */
function exchange(socket: string, bytes: Buffer): Promise<{ reply: string; closed: boolean }> {
  return new Promise((resolve) => {
    const client = connect(socket);
    let reply = Buffer.alloc(0);
    const timer = setTimeout(() => {
      client.destroy();
      resolve({ reply: reply.toString("hex"), closed: false });
    }, 500);
    client.on("data", (chunk: Buffer) => (reply = Buffer.concat([reply, chunk])));
    client.on("close", () => {
      clearTimeout(timer);
      resolve({ reply: reply.toString("hex"), closed: true });
    });
    client.write(bytes);
  });
}
