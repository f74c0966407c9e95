import { describe, expect, it } from "vitest";
import { UserError } from "../../../generator/lib/user-error.js";
import type { Model } from "../../../generator/model/model.js";
import { decodeSettings, encodeSettings } from "../../../generator/model/settings-codec.js";
import { SettingsError } from "../../../generator/model/settings-error.js";
import { loadCaseModel } from "../../golden/cases.js";

/*
 * The root daemon runs sandboxes from forage.json, so nothing in it is taken on trust: every
 * field is checked, and every problem is reported at once with its path, the file, and the fix.
 */

const file = "/etc/forage/forage.json";

/** The multi-agent example as forage.json holds it, as plain JSON data to damage. */
async function document(): Promise<Record<string, any>> {
  return JSON.parse(JSON.stringify(encodeSettings(await loadCaseModel("examples/multi-agent/forage.yaml")))) as Record<
    string,
    any
  >;
}

/** The SettingsError decoding `data` throws. */
function refusal(data: unknown): SettingsError {
  try {
    decodeSettings(data, file);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error("expected the document to be refused");
}

describe("decodeSettings refuses a damaged forage.json", () => {
  it("names every bad field with its path, the file on each line, and says to regenerate", async () => {
    const data = await document();
    const trio = data.templates.trio;
    delete data.host.user;
    data.host.proxy.port = 70000;
    data.host.surprise = true;
    trio.agents.claude.package = "pkgs; rm -rf /";
    trio.agents.claude.auth = "wrapper";
    trio.agents.other = trio.agents.codex;
    trio.extraPackages.push("../x");
    trio.network.mode = "open";
    trio.network.allow[0].host = "elsewhere.example";
    const error = refusal(data);
    expect(error.kind).toBe("config");
    expect(error.message.split("\n")).toEqual([
      `${file}: host.user: is required (expected string)`,
      `${file}: host.proxy.port: Too big: expected number to be <=65535`,
      `${file}: host.surprise: unknown field`,
      `${file}: templates.trio.agents.claude.package: must be a nixpkgs attribute path such as "ripgrep" or "python3Packages.black"`,
      `${file}: templates.trio.agents.claude.api: must be null exactly when auth is wrapper`,
      `${file}: templates.trio.agents.other.name: must be "other", the key it is filed under`,
      `${file}: templates.trio.extraPackages[3]: must be a nixpkgs attribute path such as "ripgrep" or "python3Packages.black"`,
      `${file}: templates.trio.network.mode: Invalid option: expected one of "none"|"restricted"|"full"`,
      `${file}: templates.trio.network.allow[0]: host, wildcard and port must be the parts of entry`,
      `${file}: 9 problems: it is not settings this forage-ctl wrote; regenerate it with forage-ctl generate`,
    ]);
  });

  it("refuses a template filed under another template's name", async () => {
    const data = await document();
    data.templates.base.name = "trio";
    expect(refusal(data).message.split("\n")).toEqual([
      `${file}: templates.base.name: must be "base", the key it is filed under`,
      `${file}: 1 problem: it is not settings this forage-ctl wrote; regenerate it with forage-ctl generate`,
    ]);
  });

  it("refuses a name that is not a template name, at the key", async () => {
    const data = await document();
    data.templates["../etc"] = { ...data.templates.base, name: "../etc" };
    expect(refusal(data).message).toContain(
      `${file}: templates["../etc"]: the name must be 1-32 characters of a-z, 0-9 and '-', starting with a letter`,
    );
  });
});

describe("decodeSettings refuses another version, as before the codec", () => {
  it.each([2, 0, "1", undefined])("version %s", async (version) => {
    const data = await document();
    if (version === undefined) delete data.version;
    else data.version = version;
    expect(refusal(data).message).toBe(
      `${file}: settings version ${String(version)} is not 1; regenerate it with this forage-ctl`,
    );
  });

  it.each([null, [], "text", 1])("a document that is not an object (%j)", (data) => {
    expect(refusal(data).message).toBe(
      `${file}: settings version undefined is not 1; regenerate it with this forage-ctl`,
    );
  });
});

describe("encodeSettings writes only what the runtime will read", () => {
  it("throws an internal error (a bug, not a user error) for a model outside the schema", async () => {
    const model: Model = await loadCaseModel("examples/multi-agent/forage.yaml");
    const broken: Model = { ...model, host: { ...model.host, stateDir: "relative/state" } };
    const thrown = (() => {
      try {
        encodeSettings(broken);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(UserError);
    expect((thrown as Error).message).toMatch(
      /^internal: the model of examples\/multi-agent\/forage\.yaml does not fit forage\.json's schema:\nhost\.stateDir: must be an absolute path/,
    );
  });
});
