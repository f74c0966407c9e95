# Stand-in for importNpmLock (pkgs/build-support/node/import-npm-lock/default.nix), modelling what
# it requires of a lock file: each entry's source is packageSourceOverrides.<lock path>, or its
# `resolved` URL (http/https fetched with its `integrity`, which must be there; other schemes are
# refused); an entry without either gets no source, and every direct dependency of package.json
# must then have one ("attribute 'resolved' missing", as the real one fails). An entry with no source
# at all would make the offline `npm install` of the build fail, so it is refused here too.
# The result stands in for the patched lock the real hook installs from: fetching tarballs needs
# the registry, so it holds the node_modules that `npm ci` already installed in npmRoot.
{ lib, pkgs }:
let
  sourceOf = npmRoot: overrides: path: entry:
    if overrides ? ${path} then overrides.${path}
    else if !(entry ? resolved) || entry.resolved == null then null
    else
      let
        scheme = builtins.head (builtins.match "([a-z+]*)(://.*)?" entry.resolved ++ [ null ]);
      in
      if builtins.match "[a-z+]+://.*" entry.resolved == null then assert npmRoot != null; npmRoot + "/${entry.resolved}"
      else if scheme == "http" || scheme == "https" then builtins.seq entry.integrity "fetchurl ${entry.resolved}"
      else if lib.hasPrefix "git" scheme then "fetchGit ${entry.resolved}"
      else throw "Unsupported URL scheme: ${scheme}";

  importNpmLock =
    {
      npmRoot ? null,
      package ? lib.importJSON (npmRoot + "/package.json"),
      packageLock ? lib.importJSON (npmRoot + "/package-lock.json"),
      packageSourceOverrides ? { },
      fetcherOpts ? { },
      pname ? package.name or "unknown",
      version ? package.version or "0.0.0",
    }:
    let
      entries = lib.filterAttrs (path: entry: path != "" && !(entry.link or false)) packageLock.packages;
      sources = builtins.mapAttrs (sourceOf npmRoot packageSourceOverrides) entries;
      patched = builtins.mapAttrs (path: entry: if sources.${path} == null then entry else entry // { resolved = "file:${sources.${path}}"; }) entries;
      directDependencies = builtins.attrNames ((package.dependencies or { }) // (package.devDependencies or { }));
      resolvedOf = name: patched."node_modules/${name}".resolved;
      unsourced = builtins.filter (path: sources.${path} == null) (builtins.attrNames entries);
      checked =
        builtins.deepSeq (map resolvedOf directDependencies) (
          if unsourced != [ ] then throw "importNpmLock (stand-in): no source for ${toString (builtins.length unsourced)} lock entries (first: ${builtins.head unsourced}); the offline npm install would fail with ENOTCACHED"
          else true);
    in
    builtins.seq checked (derivation {
      name = "${pname}-${version}-npm-deps";
      system = pkgs.stdenv.hostPlatform.system;
      builder = "/bin/sh";
      PATH = "/usr/bin:/bin";
      # A string, not a path: the node_modules are linked at build time, not copied into the store.
      installed = toString npmRoot + "/node_modules";
      # The patched entries, for inspection; their tarballs are not fetched here (that needs the
      # registry: nix/npm-registry-tarball.nix is tested on its own against a local one).
      lock = builtins.unsafeDiscardStringContext (builtins.toJSON patched);
      args = [ "-c" ''mkdir -p "$out" && ln -s "$installed" "$out/node_modules" && printf '%s' "$lock" > "$out/lock-entries.json"'' ];
    });
in
{
  __functor = _: importNpmLock;
  # Stands in for the hook that installs from the patched lock; the stand-in builder checks it is this one.
  npmConfigHook = { name = "importNpmLock-npmConfigHook"; };
}
