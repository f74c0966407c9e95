#!/usr/bin/env bash
# Smoke test in the fresh root, right after scripts/install.sh: what a new user does first works
# with only what install.sh installed. run.sh runs it offline (loopback only): nothing here may
# need the network.
set -euo pipefail
cd "$(dirname "$0")/../.."
# install.sh put forage-ctl on PATH and sudo on the machine, as the README's commands use them.
for tool in forage-ctl sudo; do
  command -v "$tool" > /dev/null || { echo "smoke: install.sh left no $tool on PATH" >&2; exit 1; }
done
forage() { forage-ctl "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== npm run build"
npm run --silent build

echo "== forage-ctl validate, every example"
for config in examples/*/forage.*; do forage validate "$config"; done

echo "== forage-ctl generate examples/multi-agent/forage.yaml"
forage generate examples/multi-agent/forage.yaml -o "$work/generated"

echo "== nix-build the generated gemini wrapper (stand-in nixpkgs) and start it with a key file"
mkdir -m 700 "$work/secrets"
key="smoke-key-$RANDOM$RANDOM"
printf '%s\n' "$key" > "$work/secrets/gemini-api-key"
wrapper=$(nix-build --no-out-link .ci/fresh-root/wrappers.nix -A gemini \
  --argstr generated "$work/generated" --argstr secretsDir "$work/secrets")
output=$("$wrapper/bin/gemini" --version)
# The fake agent prints program=, argv= and its environment, one per line.
for line in "program=gemini" "argv=--version" "GEMINI_API_KEY=$key"; do
  if ! grep -q -x -F -- "$line" <<< "$output"; then
    printf 'smoke: the wrapper output lacks "%s"; it printed:\n%s\n' "$line" "$output" >&2
    exit 1
  fi
done
# Rule 7: the key is read at run time, never written into the (world-readable) store.
if grep -q -F -- "$key" "$wrapper/bin/gemini"; then echo "smoke: the key is in the built wrapper" >&2; exit 1; fi
echo "$wrapper/bin/gemini: started the agent with its key"

echo "== jj --version"
jj --version
echo "smoke: passed"
