# Stand-in for the parts of nixpkgs' `lib` that Forage uses (see README.md).
let
  lib = rec {
    escapeShellArg = arg: "'" + builtins.replaceStrings [ "'" ] [ "'\\''" ] (toString arg) + "'";
    escapeShellArgs = args: builtins.concatStringsSep " " (map escapeShellArg args);
    optionalString = cond: s: if cond then s else "";
    concatStringsSep = builtins.concatStringsSep;
    concatMap = f: list: builtins.concatLists (map f list);
    mapAttrs = builtins.mapAttrs;
    attrsToList = attrs: map (name: { inherit name; value = attrs.${name}; }) (builtins.attrNames attrs);
    findFirst = pred: default: list:
      let found = builtins.filter pred list; in if found == [ ] then default else builtins.head found;
    assertMsg = cond: msg: if cond then true else builtins.throw msg;
    getExe = pkg: "${pkg}/bin/${pkg.meta.mainProgram}";
    last = list: builtins.elemAt list (builtins.length list - 1);
    setAttrByPath = path: value:
      if path == [ ] then value else { ${builtins.head path} = setAttrByPath (builtins.tail path) value; };
    recursiveUpdate = a: b:
      a // builtins.mapAttrs (name: value:
        if builtins.isAttrs value && builtins.hasAttr name a && builtins.isAttrs a.${name} && !(value ? type && value.type == "derivation")
        then recursiveUpdate a.${name} value
        else value) b;

    # Option declarations as data: { _option = true; type; default?; description; }.
    mkOption = attrs: attrs // { _option = true; };
    mkEnableOption = name: mkOption { type = types.bool; default = false; description = "Whether to enable ${name}."; };
    types = {
      str = { name = "str"; };
      int = { name = "int"; };
      bool = { name = "bool"; };
      package = { name = "package"; };
      path = { name = "path"; };
      enum = values: { name = "enum"; inherit values; };
      listOf = elem: { name = "listOf"; inherit elem; };
      attrsOf = elem: { name = "attrsOf"; inherit elem; };
      nullOr = elem: { name = "nullOr"; inherit elem; };
      either = left: right: { name = "either"; inherit left right; };
      ints.between = lo: hi: { name = "int"; };
      submodule = modules: {
        name = "submodule";
        options = builtins.foldl' (acc: module: acc // (importModule module).options) { } (
          if builtins.isList modules then modules else [ modules ]
        );
      };
    };
    importModule = module:
      let
        loaded = if builtins.isPath module then import module else module;
      in
      if builtins.isFunction loaded then loaded { inherit lib; } else loaded;
  };
in
lib
