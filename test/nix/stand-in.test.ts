import { describe, expect, it } from "vitest";
import { nixEvalJson, nixString, standInDir } from "../support/nix.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * The stand-in nixpkgs (test/nix/stand-in) refuses what the real nixpkgs and NixOS refuse, with
 * their messages: a stand-in that accepted everything would prove nothing (ARCHITECTURE.md rule 14). Each
 * refusal here is listed with its nixpkgs source in test/nix/stand-in/README.md.
 */
const tools = toolsAvailable("nix-instantiate");

/** A NixOS system of the stand-in from module sources; `.config` and `.options` of the result. */
function nixos(...modules: string[]): string {
  return `((import ${nixString(`${standInDir}/flake-outputs.nix`)}).lib.nixosSystem { modules = [
    { nixpkgs.hostPlatform = "x86_64-linux"; system.stateVersion = "25.05"; }
    ${modules.map((m) => `(${m})`).join("\n")}
  ]; })`;
}

/** Builds (instantiates) the system: assertions, types and package checks all run. */
const build = (...modules: string[]): unknown =>
  nixEvalJson(`${nixos(...modules)}.config.system.build.toplevel.drvPath`);
const alice = `{ users.users.alice = { isNormalUser = true; uid = 1000; }; }`;
const immutable = `{ users.mutableUsers = false; users.allowNoPasswordLogin = true; }`;

describe.skipIf(!tools.run)("the stand-in module system (lib.evalModules)", () => {
  it("refuses a definition of an option nobody declared", () => {
    expect(() => build(`{ services.nosuch.enable = true; }`)).toThrow("The option `services.nosuch' does not exist.");
  });

  it("refuses a value of the wrong type, naming the type", () => {
    expect(() => build(`{ users.mutableUsers = "no"; }`)).toThrow(
      "A definition for option `users.mutableUsers' is not of type `boolean'.",
    );
  });

  it("refuses two different values of equal priority, and lets mkForce or mkDefault decide", () => {
    expect(() => build(`{ networking.hostName = "a"; }`, `{ networking.hostName = "b"; }`)).toThrow(
      "The option `networking.hostName' has conflicting definition values",
    );
    const name = (...m: string[]): unknown => nixEvalJson(`${nixos(...m)}.config.networking.hostName`);
    expect(name(`{ lib, ... }: { networking.hostName = lib.mkForce "a"; }`, `{ networking.hostName = "b"; }`)).toBe(
      "a",
    );
    expect(name(`{ lib, ... }: { networking.hostName = lib.mkDefault "a"; }`, `{ networking.hostName = "b"; }`)).toBe(
      "b",
    );
  });

  it("refuses to read an option that has neither a value nor a default", () => {
    expect(() =>
      nixEvalJson(
        `((import ${nixString(`${standInDir}/flake-outputs.nix`)}).lib.nixosSystem { modules = [ { nixpkgs.hostPlatform = "x86_64-linux"; } ]; }).config.system.build.toplevel.drvPath`,
      ),
    ).toThrow("The option `system.stateVersion' was accessed but has no value defined.");
  });
});

describe.skipIf(!tools.run)("the stand-in users-groups.nix and ids.nix", () => {
  it("accepts a normal user, who gets the group `users` (gid 100) unless told otherwise", () => {
    expect(
      nixEvalJson(
        `let c = ${nixos(alice)}.config; in { group = c.users.users.alice.group; gid = c.users.groups.users.gid; }`,
      ),
    ).toEqual({ group: "users", gid: 100 });
    expect(build(alice)).toMatch(/\.drv$/);
  });

  it("refuses a second group with the gid of NixOS's own `users` (100)", () => {
    expect(() => build(alice, `{ users.groups.agent.gid = 100; }`)).toThrow(
      /Failed assertions:\n\s*- UIDs and GIDs must be unique!/,
    );
  });

  it("refuses an account with the uid of nobody (65534) or of a Nix build user, and the build users go with Nix", () => {
    const as = (uid: number): string => `{ users.users.agent = { isNormalUser = true; uid = ${uid}; }; }`;
    expect(() => build(as(65534))).toThrow("UIDs and GIDs must be unique!");
    expect(() => build(as(30001))).toThrow("UIDs and GIDs must be unique!");
    expect(build(as(30001), `{ nix.enable = false; }`)).toMatch(/\.drv$/);
  });

  it("refuses immutable users where neither root nor a wheel user can log in, unless allowNoPasswordLogin", () => {
    expect(() => build(alice, `{ users.mutableUsers = false; }`)).toThrow(
      "Neither the root account nor any wheel user has a password or SSH authorized key.",
    );
    expect(build(alice, immutable)).toMatch(/\.drv$/);
    expect(
      build(
        alice,
        `{ users.mutableUsers = false; users.users.root.openssh.authorizedKeys.keys = [ "ssh-ed25519 AAAA k" ]; }`,
      ),
    ).toMatch(/\.drv$/);
  });

  it("refuses a normal user below uid 1000, a user that is neither normal nor system, and an undeclared primary group", () => {
    expect(() => build(`{ users.users.bob = { isNormalUser = true; uid = 999; }; }`)).toThrow(
      "A user cannot have a users.users.bob.uid set below 1000 and set users.users.bob.isNormalUser.",
    );
    expect(() => build(`{ users.users.bob = { uid = 2000; group = "users"; }; }`)).toThrow(
      "Exactly one of users.users.bob.isSystemUser and users.users.bob.isNormalUser must be set.",
    );
    expect(() => build(`{ users.users.bob = { isNormalUser = true; group = "staff"; }; }`)).toThrow(
      "The following users have a primary group that is undefined: bob",
    );
  });
});

describe.skipIf(!tools.run)("the stand-in nixpkgs' unfree check and nixpkgs.nix", () => {
  const withPackage = (name: string): string => `{ pkgs, ... }: { environment.systemPackages = [ pkgs.${name} ]; }`;

  it("refuses an unfree package (claude-code) that the system's nixpkgs.config does not allow", () => {
    expect(() => build(withPackage("claude-code"))).toThrow(
      "Refusing to evaluate package 'claude-code-1.0' in test/nix/stand-in/pkgs/catalogue.nix because it has an unfree license (‘unfree’)",
    );
    expect(build(withPackage("codex"))).toMatch(/\.drv$/);
  });

  it("allows exactly what allowUnfreePredicate, allowUnfreePackages or allowUnfree allow", () => {
    const predicate = `{ lib, ... }: { nixpkgs.config.allowUnfreePredicate = pkg: builtins.elem (lib.getName pkg) [ "claude-code" ]; }`;
    expect(build(withPackage("claude-code"), predicate)).toMatch(/\.drv$/);
    expect(() => build(withPackage("vscode"), predicate)).toThrow("Refusing to evaluate package 'vscode-1.0'");
    expect(build(withPackage("claude-code"), `{ nixpkgs.config.allowUnfreePackages = [ "claude-code" ]; }`)).toMatch(
      /\.drv$/,
    );
    expect(build(withPackage("vscode"), `{ nixpkgs.config.allowUnfree = true; }`)).toMatch(/\.drv$/);
  });

  it("refuses nixpkgs.config in a system given its package set (nixpkgs.pkgs)", () => {
    const given = `{ nixpkgs.pkgs = import ${nixString(standInDir)} { }; nixpkgs.config.allowUnfree = true; }`;
    expect(() => build(given)).toThrow(
      /Your system configures nixpkgs with an externally created instance.\s+`nixpkgs.config` options should be passed when creating the instance instead./,
    );
  });

  it("refuses to make a package set without a platform", () => {
    expect(() =>
      nixEvalJson(
        `((import ${nixString(`${standInDir}/flake-outputs.nix`)}).lib.nixosSystem { modules = [ { system.stateVersion = "25.05"; } ]; }).config.system.build.toplevel.drvPath`,
      ),
    ).toThrow("Neither nixpkgs.hostPlatform nor the legacy option nixpkgs.system has been set.");
  });
});

describe.skipIf(!tools.run)("the stand-in nixos-containers.nix", () => {
  const container = (name: string, extra = ""): string =>
    `{ containers.${name} = { privateNetwork = true; ${extra} config = { system.stateVersion = "25.05"; }; }; }`;

  it("evaluates a container's config as a NixOS system of its own, which the host's system depends on", () => {
    const f1 = nixEvalJson(
      `let c = ${nixos(container("f1"))}.config.containers.f1; in { inherit (c.config.boot) isContainer; path = c.path.drvPath; }`,
    );
    expect(f1).toMatchObject({ isContainer: true, path: expect.stringMatching(/nixos-system-f1\.drv$/) });
    expect(build(container("f1"))).toMatch(/\.drv$/);
  });

  it("refuses names with underscores, names over 11 characters with a private network, and undeclared container options", () => {
    expect(() => build(container("a_b"))).toThrow(
      "Names containing underscores are not allowed in nixos-containers. Please rename the container 'a_b'",
    );
    expect(() => build(container("twelve-chars"))).toThrow("Container name `twelve-chars` is too long");
    expect(() => build(container("f1", "color = 3;"))).toThrow("The option `containers.f1.color' does not exist.");
  });

  it("mounts read-only unless told otherwise", () => {
    expect(
      nixEvalJson(`${nixos(container("f1", `bindMounts."/w".hostPath = "/srv/w";`))}.config.containers.f1.bindMounts`),
    ).toEqual({
      "/w": { hostPath: "/srv/w", isReadOnly: true, mountPoint: "/w" },
    });
  });

  it("does not hand the host's nixpkgs.config to a container: its own must allow its unfree packages", () => {
    const unfreeContainer = `{ containers.f1.config = { pkgs, ... }: { system.stateVersion = "25.05"; environment.systemPackages = [ pkgs.claude-code ]; }; }`;
    expect(() => build(unfreeContainer, `{ nixpkgs.config.allowUnfree = true; }`)).toThrow(
      "Refusing to evaluate package 'claude-code-1.0'",
    );
  });
});

describe.skipIf(!tools.run)("the stand-in sshd.nix", () => {
  const sshd = (extra: string): string => `{ services.openssh = { enable = true; ${extra} }; }`;
  const sshdConfig = (...modules: string[]): unknown =>
    nixEvalJson(`${nixos(...modules)}.config.environment.etc."ssh/sshd_config".text`);

  it("writes sshd_config as nixpkgs does: settings as yes/no lines, then NixOS's own lines, then extraConfig", () => {
    const text = sshdConfig(
      sshd(
        `settings.PasswordAuthentication = false; settings.AllowUsers = [ "a" "b" ]; extraConfig = "Match User a\\n  PermitTTY no";`,
      ),
    ) as string;
    expect(text).toMatch(/^PasswordAuthentication no$/m);
    expect(text).toMatch(/^AllowUsers a b$/m);
    expect(text.indexOf("Port 22")).toBeLessThan(text.indexOf("Match User a"));
  });

  it("refuses a list for a key nixpkgs does not join, a listenAddresses entry without addr, and keys equal but for case", () => {
    expect(() => sshdConfig(sshd(`settings.Foo = [ "x" ];`))).toThrow("list value for unknown key Foo");
    expect(() => build(sshd(`listenAddresses = [ { port = 22; } ];`))).toThrow(
      "addr must be specified in each listenAddresses entry",
    );
    expect(() => build(sshd(`settings.usePAM = true;`))).toThrow(
      "Duplicate sshd config key; does your capitalization match the option's? Duplicate keys: (UsePAM, usePAM)",
    );
  });

  it("refuses $, ` and \\ in extraConfig, which nixpkgs would let the shell expand", () => {
    expect(() => sshdConfig(sshd(`extraConfig = "Banner \\$HOME/x";`))).toThrow(/unquoted heredoc/);
  });
});
