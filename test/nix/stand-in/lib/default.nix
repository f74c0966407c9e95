# Stand-in for nixpkgs' `lib` (see ../README.md): the helpers Forage's Nix and the stand-in NixOS
# modules call, the module system (modules.nix, types.nix) and lib.fileset (fileset.nix). Each
# helper behaves as its namesake documented in the nixpkgs manual's lib reference.
let
  lib = builtins.foldl' (acc: part: acc // part) { } [
    (import ./properties.nix)
    (import ./modules.nix { inherit lib; })
    helpers
    {
      types = import ./types.nix { inherit lib; };
      fileset = import ./fileset.nix { inherit lib; };
      inherit (import ./merge.nix { inherit lib; }) mergeEqualOption mergeOneOption mergeDefaultOption showOption;
    }
  ];

  helpers = rec {
    inherit (builtins) concatStringsSep concatMap mapAttrs attrNames attrValues elem filter head tail length;
    fix = f: let x = f x; in x;
    escapeShellArg = arg: "'" + builtins.replaceStrings [ "'" ] [ "'\\''" ] (toString arg) + "'";
    escapeShellArgs = args: concatStringsSep " " (map escapeShellArg args);
    optional = cond: value: if cond then [ value ] else [ ];
    optionalString = cond: s: if cond then s else "";
    optionalAttrs = cond: attrs: if cond then attrs else { };
    nameValuePair = name: value: { inherit name value; };
    mapAttrs' = f: attrs: builtins.listToAttrs (map (name: f name attrs.${name}) (attrNames attrs));
    mapAttrsToList = f: attrs: map (name: f name attrs.${name}) (attrNames attrs);
    filterAttrs = pred: attrs: builtins.listToAttrs (map (name: nameValuePair name attrs.${name}) (filter (name: pred name attrs.${name}) (attrNames attrs)));
    genAttrs = names: f: builtins.listToAttrs (map (name: nameValuePair name (f name)) names);
    attrsToList = attrs: map (name: { inherit name; value = attrs.${name}; }) (attrNames attrs);
    findFirst = pred: default: list: let found = filter pred list; in if found == [ ] then default else head found;
    assertMsg = cond: msg: if cond then true else builtins.throw msg;
    last = list: builtins.elemAt list (length list - 1);
    unique = list: builtins.foldl' (acc: x: if elem x acc then acc else acc ++ [ x ]) [ ] list;
    setAttrByPath = path: value: if path == [ ] then value else { ${head path} = setAttrByPath (tail path) value; };
    recursiveUpdate = a: b: a // mapAttrs (name: value:
      if builtins.isAttrs value && a ? ${name} && builtins.isAttrs a.${name} && !isDerivation value && !isDerivation a.${name}
      then recursiveUpdate a.${name} value else value) b;
    isDerivation = x: builtins.isAttrs x && (x.type or null) == "derivation";
    importJSON = path: builtins.fromJSON (builtins.readFile path);
    hasPrefix = prefix: s: builtins.substring 0 (builtins.stringLength prefix) s == prefix;
    # The package's name without its version: pname when it has one.
    getName = x: if builtins.isString x then (builtins.parseDrvName x).name else x.pname or (builtins.parseDrvName x.name).name;
    getExe = pkg: "${pkg}/bin/${pkg.meta.mainProgram or (getName pkg)}";
    addMetaAttrs = meta: drv: drv // { meta = (drv.meta or { }) // meta; };
    hiPrio = addMetaAttrs { priority = -10; };
    lowPrio = addMetaAttrs { priority = 10; };
    literalExpression = text: { _type = "literalExpression"; inherit text; };
    mkEnableOption = name: lib.mkOption { type = lib.types.bool; default = false; example = true; description = "Whether to enable ${name}."; };
    licenses = {
      mit = { shortName = "mit"; free = true; };
      asl20 = { shortName = "asl20"; free = true; };
      unfree = { shortName = "unfree"; free = false; };
    };
    platforms.linux = [ "x86_64-linux" "aarch64-linux" ];
    # splitString "/" "a/b" == [ "a" "b" ] (the separator is taken literally).
    splitString = sep: s: builtins.filter builtins.isString (builtins.split (escapeRegex sep) s);
    escapeRegex = builtins.replaceStrings [ "\\" "[" "]" "{" "}" "(" ")" "^" "$" "." "|" "*" "+" "?" ] [ "\\\\" "\\[" "\\]" "\\{" "\\}" "\\(" "\\)" "\\^" "\\$" "\\." "\\|" "\\*" "\\+" "\\?" ];
    # Store names allow [A-Za-z0-9+._?=-]; anything else becomes "-", and a leading "." is dropped.
    strings.sanitizeDerivationName = name: let cleaned = builtins.replaceStrings [ "@" "/" " " ] [ "" "-" "-" ] name; in if hasPrefix "." cleaned then builtins.substring 1 (-1) cleaned else cleaned;
    fetchers.proxyImpureEnvVars = [ "http_proxy" "https_proxy" "ftp_proxy" "all_proxy" "no_proxy" "HTTP_PROXY" "HTTPS_PROXY" "FTP_PROXY" "ALL_PROXY" "NO_PROXY" ];
  };
in
lib
