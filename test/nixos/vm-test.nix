# NixOS VM test of the host module (needs KVM and nixpkgs: `nix flake check`). The facts it
# checks live in expectations.json, which test/nixos/host-module.test.ts checks without a VM.
{ pkgs, forage }:
let
  forageCtl = forage.packages.${pkgs.stdenv.hostPlatform.system}.forage-ctl;
  generated = pkgs.runCommand "forage-vm-test-generated" { } ''
    ${pkgs.lib.getExe forageCtl} generate ${./forage.yaml} -o $out
  '';
in
pkgs.testers.runNixOSTest {
  name = "forage-host-module";
  nodes.machine = {
    imports = [
      forage.nixosModules.default
      "${generated}/default.nix"
    ];
    users.users.alice = {
      isNormalUser = true;
      uid = 1000;
    };
  };
  testScript = ''
    import json

    expectations = json.load(open("${./expectations.json}"))
    machine.wait_for_unit("multi-user.target")
    machine.succeed("forage-ctl --version")
    for directory in expectations["directories"]:
        mode = machine.succeed(f"stat -c %a {directory['path']}").strip()
        assert mode == directory["mode"], f"{directory['path']}: mode {mode}, expected {directory['mode']}"
    settings = json.loads(machine.succeed("cat /etc/forage/forage.json"))
    assert settings["version"] == expectations["runtimeSettingsVersion"], settings["version"]
    assert sorted(settings["templates"]) == expectations["templates"], settings["templates"]
    for template in expectations["templates"]:
        machine.succeed(f"test -x /etc/forage/systems/{template}/init")
    machine.wait_for_unit("forage.service")
    # The user's socket, and root's (root's commands go to the daemon there).
    for socket in [expectations["daemonSocket"], expectations["rootSocket"]]:
        machine.wait_for_file(socket["path"])
        mode = machine.succeed(f"stat -c %a {socket['path']}").strip()
        assert mode == socket["mode"], f"{socket['path']}: mode {mode}, expected {socket['mode']}"
        owner = machine.succeed(f"stat -c %U {socket['path']}").strip()
        assert owner == socket["owner"], f"{socket['path']}: owner {owner}, expected {socket['owner']}"
    machine.succeed(f"su alice -c 'forage-ctl ps --json'")
    # The approvals queue answers the user on their socket (nothing waits on a fresh host), and
    # the push gate's relay, which git in a sandbox runs, is in the package.
    waiting = json.loads(machine.succeed("su alice -c 'forage-ctl approvals --json'"))
    assert waiting == [], waiting
    machine.succeed("test -x ${forageCtl}/lib/node_modules/forage/dist/native/forage-git-relay")
  '';
}
