import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  inputShape,
  resolvedShape,
  resolveSettings,
  setting,
  settingGroup,
  settingOrNull,
} from "../../../generator/config/schema/defaulted-settings.js";
import { templateSettings } from "../../../generator/config/schema/template-settings.js";
import { templateSchema } from "../../../generator/config/schema/template.js";
import { settingsTemplateSchema } from "../../../generator/model/settings-template-schema.js";
import { optionsFromObject } from "../../../generator/schema-export/nix-options.js";
import { printNix } from "../../../generator/emit/nix/index.js";

/*
 * A template setting with a default is written once (template-settings.ts); these check that
 * each place derived from it sees a setting the day it is added, with the meaning it was given.
 */

// A setting planted beside the real ones, as a new option would be added.
const planted = {
  ...templateSettings,
  keepAlive: setting(z.number().int().min(1).max(60), 15, "Minutes kept alive. Default: 15."),
  prefetch: settingGroup(
    { depth: setting(z.number().int().min(0), 2, "Pages read ahead. Default: 2.") },
    "Read-ahead.",
  ),
  shell: settingOrNull(z.enum(["bash", "zsh"]), "The login shell. Default: the host's."),
};

describe("template settings, described once", () => {
  it("the config takes a new setting, optional and without a default (extends must see it unset)", () => {
    const config = z.strictObject(inputShape(planted));
    expect(config.parse({})).toEqual({});
    expect(config.parse({ keepAlive: 5, prefetch: { depth: 0 }, shell: "zsh" })).toEqual({
      keepAlive: 5,
      prefetch: { depth: 0 },
      shell: "zsh",
    });
    // The value's own checks hold in the config.
    const refused = config.safeParse({ keepAlive: 0, prefetch: { depth: 1, extra: true }, shell: "fish" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path.join("."))).toEqual(["keepAlive", "prefetch", "shell"]);
  });

  it("resolving applies each default, keeps what is written, and copies a default it hands out", () => {
    const resolved = resolveSettings(planted, { keepAlive: 5, readOnlyWorkspace: true });
    expect(resolved).toMatchObject({
      keepAlive: 5,
      prefetch: { depth: 2 },
      shell: null,
      readOnlyWorkspace: true,
      initCommands: [],
    });
    resolved.initCommands.push("changed");
    expect(resolveSettings(planted, {}).initCommands).toEqual([]);
  });

  it("forage.json holds the resolved value and fills a default into a file written before the setting", () => {
    const document = z.strictObject(resolvedShape(planted));
    const older = document.parse({ ...resolveSettings(templateSettings, {}) });
    expect(older).toMatchObject({ keepAlive: 15, prefetch: { depth: 2 }, shell: null });
    expect(document.safeParse({ ...older, keepAlive: 61 }).success).toBe(false);
    expect(document.parse({ ...older, shell: "bash" }).shell).toBe("bash");
  });

  it("the NixOS options declare a new setting, nullable, with its description", () => {
    const nix = printNix(optionsFromObject(z.strictObject(inputShape(planted))));
    expect(nix).toContain("keepAlive = lib.mkOption");
    expect(nix).toContain('description = "Minutes kept alive. Default: 15."');
    expect(nix).toMatch(/prefetch = lib\.mkOption \{\s*type = lib\.types\.nullOr \(lib\.types\.submodule/);
    expect(nix).toMatch(/shell = lib\.mkOption \{\s*type = lib\.types\.nullOr \(lib\.types\.enum \[ "bash" "zsh" \]\)/);
  });

  it("the real template schemas carry every setting of the table", () => {
    const names = Object.keys(templateSettings);
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      expect(templateSchema.shape, name).toHaveProperty(name);
      expect(settingsTemplateSchema.shape, name).toHaveProperty(name);
    }
  });
});
