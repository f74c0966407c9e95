# One package tarball of a package-lock.json entry, fetched from the npm registry the builder's
# npm is configured with (npm's own default, or `npm_config_registry` in the environment of the
# build), and pinned by the entry's `integrity`: the fixed-output hash refuses any other bytes.
# For lock files written without `resolved` URLs (npm's omit-lockfile-registry-resolved), so this
# repository names no registry host and needs no npmDepsHash kept in step with the lock.
{ lib, runCommand, nodejs }:
{ path, entry }:
let
  # The package's own name: `name` for an alias, else what follows the last node_modules/ of its path.
  name = entry.name or (lib.last (lib.splitString "node_modules/" path));
in
runCommand "npm-${lib.strings.sanitizeDerivationName "${name}-${entry.version}"}.tgz"
  {
    nativeBuildInputs = [ nodejs ];
    outputHash = entry.integrity;
    outputHashMode = "flat";
    impureEnvVars = lib.fetchers.proxyImpureEnvVars ++ [ "npm_config_registry" "NPM_CONFIG_REGISTRY" ];
    spec = "${name}@${entry.version}";
  }
  ''
    export HOME="$TMPDIR" npm_config_update_notifier=false
    mkdir "$TMPDIR/pack"
    npm pack --ignore-scripts --pack-destination "$TMPDIR/pack" "$spec" > /dev/null
    mv "$TMPDIR"/pack/*.tgz "$out"
  ''
