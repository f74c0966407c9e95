#!/usr/bin/env bash
# The main job on the bundled example: validate and generate it, then create a real sandbox from
# its first template (host root: no Nix, no secrets), run commands in it, and remove it again.
# Needs root (namespaces, mounts, systemd-nspawn); scripts/install.sh installs what it uses.
# The example's host user is "forage-demo": created here if missing, and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

config=examples/quickstart/forage.yaml
demo_user=forage-demo
forage() { node dist/bin/main.js --config "$config" "$@"; }
# Prints the forage-ctl command exactly as it runs (each argument single-quoted where the shell
# needs it, so it can be pasted), then runs it.
show() {
  local line="== forage-ctl" arg
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=@%+-]+$ ]]; then line+=" $arg"; else line+=" '${arg//\'/\'\\\'\'}'"; fi
  done
  printf '%s\n' "$line"
  forage "$@"
}

npm run --silent build
show validate "$config"
show generate "$config" -o out/quickstart

# `up` run as root starts the daemon when none answers; the demo stops the one it started.
daemon_socket="${FORAGE_RUN_DIR:-/run/forage}/daemon.sock"
daemon_was_running=""
if node -e 'require("net").connect(process.argv[1]).on("connect", () => process.exit(0)).on("error", () => process.exit(1))' "$daemon_socket"; then
  daemon_was_running=1
fi
created_user=""
if ! id "$demo_user" > /dev/null 2>&1; then
  useradd --user-group --no-create-home --shell /usr/sbin/nologin --comment "Forage quickstart (removed at the end)" "$demo_user"
  created_user=1
fi
workspace=$(mktemp -d /tmp/forage-quickstart.XXXXXX)
chown "$demo_user:" "$workspace"
cleanup() {
  forage down demo -t 1 > /dev/null 2>&1 || true
  if [ -z "$daemon_was_running" ]; then forage daemon --stop > /dev/null 2>&1 || true; fi
  rm -rf "$workspace"
  if [ -n "$created_user" ]; then userdel "$demo_user" 2> /dev/null || true; fi
}
trap cleanup EXIT

show up demo -t shell -w "$workspace"
show ps
show exec demo -- sh -c 'id; hostname; cat /tmp/forage-ready; ls -A /home; touch /usr/x 2>&1 || true'
show exec demo -- sh -c 'echo hello from the sandbox > /workspace/hello.txt'
echo "== cat $workspace/hello.txt   (on the host)"
cat "$workspace/hello.txt"
show down demo
if [ -z "$daemon_was_running" ]; then echo "== (stopping the forage daemon that 'up' started for the demo)"; fi
