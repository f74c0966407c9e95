import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostHasRoom } from "../../../runtime/sandbox/pool-keeper.js";
import { poolKey } from "../../../runtime/sandbox/pool-key.js";
import { poolLines } from "../../../cli/commands/observe.js";
import type { SandboxView } from "../../../runtime/api/sandbox-view.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import type { RuntimeContext } from "../../../runtime/core/context.js";

const meminfo = (totalKiB: number, availableKiB: number): string => {
  const file = join(mkdtempSync(join(tmpdir(), "forage-meminfo-")), "meminfo");
  writeFileSync(file, `MemTotal:       ${totalKiB} kB\nMemFree:        1 kB\nMemAvailable:   ${availableKiB} kB\n`);
  return file;
};

describe("the warm pool keeper's room on the host", () => {
  it("starts a member while a tenth of the host's memory, and at least 512 MiB, stays available", async () => {
    expect(await hostHasRoom(meminfo(24 * 1024 * 1024, 3 * 1024 * 1024))).toEqual({ ok: true });
    expect(await hostHasRoom(meminfo(24 * 1024 * 1024, 2 * 1024 * 1024))).toEqual({
      ok: false,
      why: "the host has 2048 MiB available, below the 2458 MiB kept free",
    });
    // A small host keeps the 512 MiB floor.
    expect((await hostHasRoom(meminfo(2 * 1024 * 1024, 500 * 1024))).ok).toBe(false);
    expect((await hostHasRoom(meminfo(2 * 1024 * 1024, 600 * 1024))).ok).toBe(true);
  });
});

describe("a pool member's key", () => {
  const template = { name: "t", pool: { size: 1 }, initCommands: ["a"] } as unknown as TemplateModel;
  const context = { settings: { host: { user: "alice" } } } as unknown as RuntimeContext;

  it("is 16 hex digits, the same for the same template and host settings", () => {
    expect(poolKey(context, template)).toMatch(/^[0-9a-f]{16}$/);
    expect(poolKey(context, { ...template })).toBe(poolKey(context, template));
  });

  it("changes when the template or the host's settings change (its members are then replaced)", () => {
    const changed = { ...template, initCommands: ["b"] } as unknown as TemplateModel;
    expect(poolKey(context, changed)).not.toBe(poolKey(context, template));
    const otherHost = { settings: { host: { user: "bob" } } } as unknown as RuntimeContext;
    expect(poolKey(otherHost, template)).not.toBe(poolKey(context, template));
  });
});

describe("ps's warm pool lines", () => {
  const member = (name: string, template: string, status: SandboxView["status"]): SandboxView =>
    ({ name, template, status, pool: true }) as SandboxView;

  it("names each template's members with their state, a running one without a session as ready", () => {
    expect(
      poolLines([
        member("pool-00000001", "a", "no-session"),
        member("pool-00000002", "b", "stopped"),
        member("pool-00000003", "a", "no-session"),
      ]),
    ).toEqual(["  a: pool-00000001 (ready), pool-00000003 (ready)", "  b: pool-00000002 (stopped)"]);
  });
});
