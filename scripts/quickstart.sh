#!/usr/bin/env bash
# The main job on the bundled example: validate and generate it, then create a real sandbox from
# its first template (host root: no Nix, no secrets), run commands in it, and remove it again.
# Needs root (namespaces, mounts, systemd-nspawn); scripts/install.sh installs what it uses.
set -euo pipefail
cd "$(dirname "$0")/.."

config=examples/quickstart/forage.yaml
forage() { node dist/cli/main.js --config "$config" "$@"; }

npm run --silent build
echo "== validate and generate $config"
forage validate "$config"
forage generate "$config" -o out/quickstart

workspace=$(mktemp -d /tmp/forage-quickstart.XXXXXX)
chown nobody:nogroup "$workspace"
trap 'forage down demo -t 1 >/dev/null 2>&1 || true; rm -rf "$workspace"' EXIT

echo "== forage-ctl up demo -t shell -w $workspace"
forage up demo -t shell -w "$workspace"
echo "== forage-ctl ps"
forage ps
echo "== forage-ctl exec demo -- sh -c 'id; hostname; cat /tmp/forage-ready; ls -A /home; touch /usr/x'"
forage exec demo -- sh -c 'id; hostname; cat /tmp/forage-ready; ls -A /home; touch /usr/x 2>&1 || true'
echo "== forage-ctl exec demo -- sh -c 'echo hello > /workspace/hello.txt'  (then read on the host)"
forage exec demo -- sh -c 'echo hello from the sandbox > /workspace/hello.txt'
cat "$workspace/hello.txt"
echo "== forage-ctl down demo"
forage down demo
echo "(the forage daemon started by 'up' keeps serving unprivileged users; stop it with: forage-ctl daemon --stop)"
