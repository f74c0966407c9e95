import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson } from "../support/nix.js";
import { flakePrelude } from "../support/nixos-routes.js";
import { isRoot, toolsAvailable } from "../support/tools.js";

/*
 * services.forage.gateway on the stand-in NixOS (its accounts, sshd options and assertions, from
 * nixpkgs' users-groups.nix and sshd.nix), and the sshd_config it leads to checked by the host's
 * real sshd: as nixpkgs' system.checks does (`sshd -T -C lport=…`; this sshd predates -G), and
 * asked what it would apply to a gateway login and to anyone else's.
 */
const tools = toolsAvailable("nix-instantiate", "sshd", "ssh-keygen");
const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhKzUxWJsWqDlWkVLqvY7JbNuXJq3yY8b2mX3JkFv0x remote@laptop";

describe.skipIf(!tools.run)("the SSH gateway of the host module (services.forage.gateway)", () => {
  let root = "";
  const host = (extra = "{ }"): string => `(let ${flakePrelude} in (nixpkgs.lib.nixosSystem { modules = [
    self.nixosModules.default (/. + "${join(root, "out")}")
    ({ lib, ... }: { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; users.users.alice = { isNormalUser = true; uid = lib.mkDefault 1000; }; })
    { services.forage.gateway = { enable = true; authorizedKeys = [ "${key}" ]; }; }
    (${extra})
  ]; }).config)`;
  const failing = (extra?: string): string[] =>
    nixEvalJson(`map (a: a.message) (builtins.filter (a: !a.assertion) ${host(extra)}.assertions)`) as string[];

  /** The host's sshd_config written out, with a host key for sshd -T (nixpkgs' check makes one too). */
  const sshdConfig = (extra?: string): string => {
    const file = join(root, `sshd_config-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, nixEvalJson(`${host(extra)}.environment.etc."ssh/sshd_config".text`) as string);
    return file;
  };
  /** What the real sshd applies to a connection (`sshd -T -C …`), as "keyword value" lines by keyword. */
  const effective = (file: string, connection: string): Map<string, string> => {
    const output = execFileSync("sshd", ["-T", "-f", file, "-h", join(root, "host_key"), "-C", connection], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new Map(output.split("\n").map((line) => [line.split(" ")[0] ?? "", line.slice(line.indexOf(" ") + 1)]));
  };

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "forage-gateway-module-"));
    await writeCaseOutput(join(root, "out"), "test/nixos/forage.yaml");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(root, "host_key")]);
    // sshd (even -T) refuses to start without its privilege separation directory.
    if (isRoot()) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("passes every assertion, NixOS's own included", () => {
    expect(failing()).toEqual([]);
  });

  it("makes a system account with its own group, no usable password, the keys, and the gateway as its shell", () => {
    const account = nixEvalJson(
      `let u = ${host()}.users.users.forage; in { inherit (u) isSystemUser isNormalUser group hashedPassword home; keys = u.openssh.authorizedKeys.keys; shell = toString u.shell; }`,
    );
    expect(account).toEqual({
      isSystemUser: true,
      isNormalUser: false,
      group: "forage",
      hashedPassword: "*",
      home: "/var/empty",
      keys: [key],
      shell: expect.stringMatching(/-forage-gateway-shell\/bin\/forage-gateway-shell$/),
    });
    expect(nixEvalJson(`builtins.hasAttr "forage" ${host()}.users.groups`)).toBe(true);
  });

  it("names the gateway account to the daemon", () => {
    expect(nixEvalJson(`${host()}.systemd.services.forage.environment.FORAGE_GATEWAY_USER`)).toBe("forage");
  });

  it.skipIf(!isRoot())(
    "gives a gateway login the forced command and a terminal, and no forwarding of any kind (real sshd -T)",
    () => {
      const gateway = effective(sshdConfig(), "user=forage,host=remote,addr=192.0.2.7,lport=22");
      expect(gateway.get("forcecommand")).toMatch(/^\/nix\/store\/[^ ]+\/bin\/forage-ctl gateway$/);
      expect(
        Object.fromEntries(
          [
            "permittty",
            "disableforwarding",
            "allowtcpforwarding",
            "allowstreamlocalforwarding",
            "allowagentforwarding",
            "x11forwarding",
            "permittunnel",
            "gatewayports",
            "permituserrc",
          ].map((k) => [k, gateway.get(k)]),
        ),
      ).toEqual({
        permittty: "yes",
        disableforwarding: "yes",
        allowtcpforwarding: "no",
        allowstreamlocalforwarding: "no",
        allowagentforwarding: "no",
        x11forwarding: "no",
        permittunnel: "no",
        gatewayports: "no",
        permituserrc: "no",
      });
    },
  );

  it.skipIf(!isRoot())("leaves every other login as it was (real sshd -T)", () => {
    const alice = effective(sshdConfig(), "user=alice,host=remote,addr=192.0.2.7,lport=22");
    expect(alice.get("forcecommand")).toBe("none");
    expect(alice.get("allowtcpforwarding")).toBe("yes");
  });

  it.skipIf(!isRoot())("adds its own port beside NixOS's 22 (never replacing it) and opens it in the firewall", () => {
    const file = sshdConfig("{ services.forage.gateway.port = 2222; }");
    for (const port of ["22", "2222"]) effective(file, `lport=${port}`);
    expect(
      execFileSync("sshd", ["-T", "-f", file, "-h", join(root, "host_key")], { encoding: "utf8" }).match(
        /^port \d+$/gm,
      ),
    ).toEqual(["port 22", "port 2222"]);
    expect(
      nixEvalJson(`${host("{ services.forage.gateway.port = 2222; }")}.networking.firewall.allowedTCPPorts`),
    ).toEqual([22, 2222]);
  });

  it.skipIf(!isRoot())(
    "keeps its block last and closed, so another module's settings are not scoped to the gateway",
    () => {
      const file = sshdConfig(`{ lib, ... }: { services.openssh.extraConfig = "ClientAliveInterval 30"; }`);
      expect(effective(file, "user=alice,host=remote,addr=192.0.2.7,lport=22").get("clientaliveinterval")).toBe("30");
    },
  );

  it("refuses a gateway nobody could log in to", () => {
    expect(failing(`{ lib, ... }: { services.forage.gateway.authorizedKeys = lib.mkForce [ ]; }`)).toEqual([
      expect.stringMatching(/^services\.forage\.gateway\.authorizedKeys is empty, so nobody could log in/),
    ]);
  });

  it("refuses a key with a line break (one key per entry, as nixpkgs' singleLineStr)", () => {
    const smuggled = `{ lib, ... }: { services.forage.gateway.authorizedKeys = lib.mkForce [ "ssh-ed25519 AAAA a\\ncommand=\\"sh\\" ssh-ed25519 BBBB" ]; }`;
    expect(() => nixEvalJson(`${host(smuggled)}.users.users.forage.openssh.authorizedKeys.keys`)).toThrow(
      /single-line string/,
    );
  });
});
