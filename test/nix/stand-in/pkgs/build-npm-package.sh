# Builder of the stand-in buildNpmPackage (see build-npm-package.nix), with the host's node and npm.
set -euo pipefail
export HOME="$TMPDIR" npm_config_offline=true npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

cp -r "$src/." "$TMPDIR/build"
chmod -R u+w "$TMPDIR/build"
cd "$TMPDIR/build"
[ -f package-lock.json ] || { echo "ERROR: No lock file!" >&2; exit 1; }

# npmConfigHook: the dependencies the lock names, installed (a private copy, pruned below).
cp -a "$npmDeps/node_modules/." node_modules

if [ -z "$dontNpmBuild" ]; then
  node -e 'const s = require("./package.json").scripts ?? {}; if (!(process.argv[1] in s)) { console.error(`ERROR: no build script was specified (npm run ${process.argv[1]}: no such script)`); process.exit(1); }' "$npmBuildScript"
  npm run "$npmBuildScript"
fi

name=$(node -p 'require("./package.json").name')
package="$out/lib/node_modules/$name"
mkdir -p "$package"
# The files `npm pack` would ship (package.json's `files`), as the install hook takes them.
npm pack --dry-run --json --ignore-scripts | node -e 'for (const f of JSON.parse(require("fs").readFileSync(0, "utf8"))[0].files) console.log(f.path)' |
  while IFS= read -r file; do
    mkdir -p "$package/$(dirname "$file")"
    cp -a "$file" "$package/$file"
  done
[ -n "$dontNpmPrune" ] || npm prune --omit=dev --no-save --ignore-scripts > /dev/null
cp -a node_modules "$package/node_modules"

mkdir -p "$out/bin"
node -e 'const b = require("./package.json").bin ?? {}; for (const [k, v] of Object.entries(typeof b === "string" ? { [require("./package.json").name]: b } : b)) console.log(k + " " + v)' |
  while read -r command target; do
    printf '#!/bin/sh\nexec /usr/bin/node %s "$@"\n' "$package/$target" > "$out/bin/$command"
    chmod +x "$out/bin/$command"
  done
