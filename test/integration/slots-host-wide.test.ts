import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostSlotsDir } from "../../runtime/state/slots.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestHost } from "./harness.js";

/*
 * Two Forage instances on one host: two state directories with the same network base, as two
 * users' instances with the default config would be. A slot names host resources (namespace
 * f<N>, link ve-f<N>, table forage_f<N>), so it must be unique on the host, and one instance's gc
 * must never take the other's. (With different bases the addresses differ, and gc already told
 * the namespaces apart by address; the same base is the case that broke.)
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft");

interface Listed {
  name: string;
  slot: number;
  status: string;
}

describe.skipIf(!tools.run || !isRoot())("escape: slots are host-wide, gc takes only its own", () => {
  const first = new TestHost("10.242");
  const second = new TestHost("10.242");
  const slotOf = async (host: TestHost, name: string): Promise<number> => {
    const listed = JSON.parse((await host.run(["ps", "--json"])).stdout) as Listed[];
    const found = listed.find((s) => s.name === name && s.status === "running");
    if (found === undefined) throw new Error(`${name} is not running: ${JSON.stringify(listed)}`);
    return found.slot;
  };
  /** What stands of slot N's link: the sandbox end's address, the host end, the host table. */
  const linkOf = async (slot: number) => ({
    address: (
      await execa("ip", ["-n", `f${slot}`, "-o", "addr", "show", "dev", "eth0"], { reject: false })
    ).stdout.includes(` 10.242.${slot}.2/`),
    hostEnd: existsSync(`/sys/class/net/ve-f${slot}`),
    table: (await execa("nft", ["list", "table", "inet", `forage_f${slot}`], { reject: false })).exitCode === 0,
  });

  beforeAll(async () => {
    const one = await first.run(["up", "one", "-t", "basic", "-w", first.workspace("one")]);
    expect(one.exitCode, one.stderr).toBe(0);
    const two = await second.run(["up", "two", "-t", "basic", "-w", second.workspace("two")]);
    expect(two.exitCode, two.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await first.cleanup();
    await second.cleanup();
  });

  it("gives sandboxes of two state directories different slots, both running", async () => {
    expect(await slotOf(first, "one")).not.toBe(await slotOf(second, "two"));
    expect(await first.sh("one", "echo first")).toBe("first\n");
    expect(await second.sh("two", "echo second")).toBe("second\n");
  });

  it("keeps two state directories' sandboxes of the same name apart: stopping one leaves the other's processes", async () => {
    for (const host of [first, second]) {
      const up = await host.run(["up", "same", "-t", "basic", "-w", host.workspace("same")]);
      expect(up.exitCode, up.stderr).toBe(0);
    }
    expect((await first.run(["stop", "same", "-t", "1"])).exitCode).toBe(0);
    // Control: the first one is really stopped.
    expect((await first.run(["exec", "same", "--", "true"])).exitCode).not.toBe(0);
    expect(await second.sh("same", "echo still here")).toBe("still here\n");
    expect((await second.run(["down", "same", "-t", "1"])).exitCode).toBe(0);
  });

  it("gc --force in one state directory leaves the other's running sandbox and its link alone", async () => {
    const slot = await slotOf(second, "two");
    expect(await linkOf(slot)).toEqual({ address: true, hostEnd: true, table: true });
    const gc = await first.run(["gc", "--force"]);
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(await linkOf(slot)).toEqual({ address: true, hostEnd: true, table: true });
    expect(await second.sh("two", "echo still here")).toBe("still here\n");
  });

  it("control: gc --force does remove a namespace its own state directory claimed for a sandbox that is gone", async () => {
    const up = await first.run(["up", "lost", "-t", "basic", "-w", first.workspace("lost")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const slot = await slotOf(first, "lost");
    // The sandbox stops, its namespace is left behind (as a killed stop leaves it), its state is lost.
    expect((await first.run(["stop", "lost", "-t", "1"])).exitCode).toBe(0);
    await execa("ip", ["netns", "add", `f${slot}`]);
    rmSync(join(first.env.FORAGE_STATE_DIR ?? "", "sandboxes", "lost.json"));
    const listed = await first.run(["gc"]);
    expect(listed.stdout).toContain(`f${slot}`);
    expect((await first.run(["gc", "--force"])).exitCode).toBe(0);
    expect(existsSync(`/run/netns/f${slot}`)).toBe(false);
    expect(existsSync(join(hostSlotsDir, String(slot)))).toBe(false);
    // The other instance's sandbox stayed through it all.
    expect(await second.sh("two", "echo still here")).toBe("still here\n");
  });

  it("gives the slot back on down: its claim is gone", async () => {
    const slot = await slotOf(second, "two");
    expect(existsSync(join(hostSlotsDir, String(slot)))).toBe(true);
    expect((await second.run(["down", "two", "-t", "1"])).exitCode).toBe(0);
    expect(existsSync(join(hostSlotsDir, String(slot)))).toBe(false);
  });
});
