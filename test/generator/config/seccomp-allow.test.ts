import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { configErrorOf, tempConfigDir, type TempConfigDir } from "./temp-config.js";

/* A template's `seccomp.allow`: what holds on every runtime is accepted, the rest refused with why. */
let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(() => temp.cleanup());

const write = (lines: string[]): Promise<string> =>
  temp.write("forage.yaml", ["user: alice", "templates:", "  t:", ...lines, ""].join("\n"));

describe("a template's seccomp exceptions", () => {
  it("refuses one namespace syscall alone, which a NixOS sandbox's own session could not honour", async () => {
    await write(["    seccomp: { allow: [setns] }"]);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      ["templates.t.seccomp.allow", expect.stringContaining('as the group "namespaces"')],
    ]);
  });

  it("takes the namespaces group whole", async () => {
    await write(["    seccomp: { allow: [namespaces] }"]);
    const model = resolveModel((await loadConfig("forage.yaml", temp.dir)).config, "forage.yaml");
    expect(model.templates[0]?.seccomp.allow).toEqual(["namespaces"]);
  });
});
