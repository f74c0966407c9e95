# Stand-in for lib.fileset (lib/fileset/default.nix) as nix/package.nix uses it: `unions` of
# paths that must exist (a missing one is refused, as the real one refuses it), `maybeMissing`,
# and `toSource`, which copies exactly those files under `root` into the store.
{ lib }:
let
  inherit (builtins) concatMap filter isPath pathExists stringLength substring;
  isFileset = x: builtins.isAttrs x && (x._type or null) == "fileset";
  under = dir: path: path == dir || substring 0 (stringLength dir + 1) path == "${dir}/";
  coerce =
    context: x:
    if isFileset x then
      x
    else if !isPath x then
      throw "${context} is not a path or file set."
    else if !pathExists x then
      throw "${context} (${toString x}) is a path that does not exist.\n    To create a file set from a path that may not exist, use `lib.fileset.maybeMissing`."
    else
      { _type = "fileset"; paths = [ (toString x) ]; };
in
{
  maybeMissing = path: { _type = "fileset"; paths = if pathExists path then [ (toString path) ] else [ ]; };
  unions =
    list:
    {
      _type = "fileset";
      paths = concatMap (i: (coerce "lib.fileset.unions: Element ${toString i}" (builtins.elemAt list i)).paths) (builtins.genList (i: i) (builtins.length list));
    };
  toSource =
    { root, fileset }:
    let
      rootString = toString root;
      paths = (coerce "lib.fileset.toSource: `fileset`" fileset).paths;
      outside = filter (path: !under rootString path) paths;
      # A directory on the way to an included path is kept (as a directory), so the copy has it.
      wanted = path: builtins.any (included: under included path || under path included) paths;
    in
    if outside != [ ] then
      throw "lib.fileset.toSource: `fileset` could contain files in ${builtins.head outside}, which is not under the `root` (${rootString})."
    else
      builtins.path {
        name = "source";
        path = root;
        filter = path: _type: wanted (toString path);
      };
}
