import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * Issue 26: two sandboxes on one -w folder. Stopping one removed the stand-ins by their shape, so
 * the other, still running, lost them (`touch /workspace/.envrc` went from refused to allowed: a
 * mount point unlinked on the host is unmounted in every namespace). Stand-ins are now recorded by
 * what `up` made, per folder, and the last sandbox to leave removes them; `up` says when a folder
 * is in use already. The control: a sandbox whose template lifts .envrc does create it.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock");

describe.skipIf(!tools.run || !isRoot())("two sandboxes on one workspace folder", () => {
  const host = new TestHost("10.211", "nobody", "\n  lenient:\n    extends: basic\n    workspace: { unprotected: [.envrc] }\n");
  const touchEnvrc = "touch /workspace/.envrc/x 2>/dev/null || touch /workspace/.envrc 2>/dev/null && echo allowed || echo refused";

  beforeAll(() => chmodSync(host.dir, 0o711));
  afterAll(() => host.cleanup());

  it("control: a sandbox whose template lifts .envrc creates it in the folder", async () => {
    const ws = host.workspace("lifted");
    expect((await host.run(["up", "lifted", "-t", "lenient", "-w", ws])).exitCode).toBe(0);
    expect(await host.sh("lifted", touchEnvrc)).toBe("allowed\n");
    expect(lstatSync(join(ws, ".envrc")).isFile()).toBe(true);
    expect((await host.run(["down", "lifted"])).exitCode).toBe(0);
  });

  it("keeps the stand-ins while the other sandbox runs, says the folder is in use, and the last one out removes them", async () => {
    const ws = host.workspace("shared");
    const first = await host.run(["up", "first", "-t", "basic", "-w", ws]);
    expect([first.exitCode, first.stderr]).toEqual([0, ""]);
    const second = await host.run(["up", "second", "-t", "basic", "-w", ws]);
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toContain(`${ws} is in use by sandbox "first" too`);
    expect(await host.sh("second", touchEnvrc)).toBe("refused\n");
    expect((await host.run(["stop", "first"])).exitCode).toBe(0);
    // The stand-in is still there for the sandbox that runs, on the host and inside.
    expect(lstatSync(join(ws, ".envrc")).isDirectory()).toBe(true);
    expect(await host.sh("second", touchEnvrc)).toBe("refused\n");
    expect((await host.run(["down", "second"])).exitCode).toBe(0);
    expect(readdirSync(ws)).toEqual([]);
    expect((await host.run(["down", "first"])).exitCode).toBe(0);
  });

  it("removes only what up made: an empty directory of the user's own at a protected name stays", async () => {
    const ws = host.workspace("own");
    mkdirSync(join(ws, ".vscode"));
    await execa("chown", [`${agentUid}:${agentUid}`, join(ws, ".vscode")]);
    expect((await host.run(["up", "own", "-t", "basic", "-w", ws])).exitCode).toBe(0);
    expect(await host.sh("own", "touch /workspace/.vscode/tasks.json 2>/dev/null && echo allowed || echo refused")).toBe("refused\n");
    expect((await host.run(["down", "own"])).exitCode).toBe(0);
    expect(readdirSync(ws)).toEqual([".vscode"]);
    expect(existsSync(join(ws, ".envrc"))).toBe(false);
  });
});
