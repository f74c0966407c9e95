import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { configErrorOf, tempConfigDir, where, type TempConfigDir } from "./temp-config.js";

let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(async () => {
  await temp.cleanup();
});

const config = (...templates: string[]): string =>
  [
    "user: alice",
    "templates:",
    "  base:",
    "    agents:",
    "      a: { package: bashInteractive, executable: bash }",
    ...templates,
    "",
  ].join("\n");

describe("a template's warm pool (pool.size)", () => {
  it.each(["nspawn-nix", "extra-container", "gvisor"])(
    "is refused at pool.size beside runtime %s, saying why and what to set",
    async (runtime) => {
      await temp.write(
        "forage.yaml",
        config("  p:", "    extends: base", `    runtime: ${runtime}`, "    pool: { size: 2 }"),
      );
      const error = await configErrorOf("forage.yaml", temp.dir);
      expect(error.diagnostics.map((d) => d.path)).toEqual([["templates", "p", "pool", "size"]]);
      expect(where(error.diagnostics[0]!)).toBe("forage.yaml:9:13");
      expect(error.diagnostics[0]?.message).toMatch(
        new RegExp(
          `^pool keeps sandboxes started ahead, and runtime "${runtime}" cannot take a workspace into one that runs \\(.+\\): set runtime: nspawn, or pool.size: 0$`,
        ),
      );
    },
  );

  it("is refused at the runtime of a template that inherits the pool, and said once: not again at a child that inherits both", async () => {
    await temp.write(
      "forage.yaml",
      config(
        "  p:",
        "    extends: base",
        "    pool: { size: 1 }",
        "  g:",
        "    extends: p",
        "    runtime: gvisor",
        "  h:",
        "    extends: g",
      ),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.path)).toEqual([["templates", "g", "runtime"]]);
  });

  it("is taken with runtime nspawn, or none (the host's choice), and resolves to 0 where it is not written", async () => {
    await temp.write(
      "forage.yaml",
      config(
        "  p:",
        "    extends: base",
        "    runtime: nspawn",
        "    pool: { size: 16 }",
        "  q:",
        "    extends: base",
        "    pool: { size: 1 }",
      ),
    );
    const loaded = await loadConfig(`${temp.dir}/forage.yaml`);
    const model = resolveModel(loaded.config, loaded.file);
    const sizes = Object.fromEntries(model.templates.map((t) => [t.name, t.pool.size]));
    expect(sizes).toEqual({ base: 0, p: 16, q: 1 });
  });

  it.each([
    ["17", "must be at most 16"],
    ["-1", "must be 0 (no pool) or more"],
    ["1.5", "must be a whole number of sandboxes"],
  ])("refuses size %s: %s", async (size, message) => {
    await temp.write("forage.yaml", config("  p:", "    extends: base", `    pool: { size: ${size} }`));
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.path)).toEqual([["templates", "p", "pool", "size"]]);
    expect(error.diagnostics[0]?.message).toContain(message);
  });
});
