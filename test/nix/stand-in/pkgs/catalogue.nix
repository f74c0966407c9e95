# The packages the stand-in nixpkgs has: every attribute path Forage's modules, examples and
# golden cases use, each a fake program (fake-package.nix). Facts kept from nixpkgs: claude-code is
# unfree (meta.license = lib.licenses.unfree) and its program is `claude`; codex and gemini-cli
# are free (asl20) with programs `codex` and `gemini`; vscode is unfree too (an unfree package that
# is no agent). A path missing here is missing from the stand-in, as an unknown attribute is from
# nixpkgs: add it when an example needs it.
{ lib }:
[
  { path = [ "claude-code" ]; bins = [ "claude" ]; license = lib.licenses.unfree; }
  { path = [ "codex" ]; license = lib.licenses.asl20; }
  { path = [ "gemini-cli" ]; bins = [ "gemini" ]; license = lib.licenses.asl20; }
  { path = [ "vscode" ]; bins = [ "code" ]; license = lib.licenses.unfree; }
  { path = [ "aider-chat" ]; bins = [ "aider" ]; }
  { path = [ "opencode" ]; }
  { path = [ "hello" ]; }
  { path = [ "beads" ]; bins = [ "bd" ]; }
  { path = [ "bashInteractive" ]; bins = [ "bash" "sh" ]; shellPath = "/bin/bash"; }
  { path = [ "shadow" ]; bins = [ "nologin" ]; shellPath = "/bin/nologin"; }
  { path = [ "coreutils" ]; bins = [ "kill" "ls" ]; }
  { path = [ "systemd" ]; bins = [ "systemctl" ]; }
  { path = [ "util-linux" ]; bins = [ "nsenter" ]; }
  { path = [ "iproute2" ]; bins = [ "ip" ]; }
  { path = [ "nftables" ]; bins = [ "nft" ]; }
  { path = [ "conntrack-tools" ]; bins = [ "conntrack" ]; }
  { path = [ "git" ]; }
  { path = [ "git-lfs" ]; }
  { path = [ "jujutsu" ]; bins = [ "jj" ]; }
  { path = [ "neovim" ]; bins = [ "nvim" ]; }
  { path = [ "ripgrep" ]; bins = [ "rg" ]; }
  { path = [ "fd" ]; }
  # nixpkgs' glibc has a `static` output (libc.a) that static links need; only nix/package.nix's
  # buildInputs names it, and the stand-in's builder links with the host's libc.a instead.
  { path = [ "glibc" "static" ]; bins = [ ]; }
  { path = [ "jq" ]; }
  { path = [ "nix" ]; }
  { path = [ "nixfmt" ]; }
  { path = [ "nixfmt-tree" ]; bins = [ "treefmt" ]; }
  { path = [ "nodejs_22" ]; bins = [ "node" ]; }
  { path = [ "nodePackages" "prettier" ]; }
  { path = [ "python3Packages" "black" ]; }
  { path = [ "python3Packages" "in'" ]; }
]
