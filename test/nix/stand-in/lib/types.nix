# Stand-in for nixpkgs' option types (lib/types.nix): each type checks a definition and merges
# several, as the real ones do, with the real descriptions (they appear in type errors). Only the
# types Forage's modules and the stand-in NixOS modules declare.
{ lib }:
let
  inherit (builtins) all attrNames concatLists elem filter genList head isAttrs isBool isFunction isInt isList isPath isString length listToAttrs mapAttrs match substring zipAttrsWith;
  m = import ./merge.nix { inherit lib; };
  isDerivation = x: isAttrs x && (x.type or null) == "derivation";
  isStringLike = x: isString x || isPath x || x ? outPath || x ? __toString;
  isStorePath = x: isStringLike x && match "/nix/store/[^/]+" (toString x) != null;

  mkOptionType =
    {
      name,
      description ? name,
      check ? (_: true),
      merge ? m.mergeDefaultOption,
      getSubOptions ? (_: { }),
      nestedTypes ? { },
      extra ? { },
    }:
    {
      _type = "option-type";
      inherit name description check merge getSubOptions nestedTypes;
    }
    // extra;

  ints = rec {
    between =
      lowest: highest:
      mkOptionType {
        name = "intBetween";
        description = "integer between ${toString lowest} and ${toString highest} (both inclusive)";
        check = x: isInt x && x >= lowest && x <= highest;
        merge = m.mergeEqualOption;
      };
    u16 = between 0 65535;
  };

  separatedString =
    sep:
    mkOptionType {
      name = "separatedString";
      description = if sep == "\n" then "strings concatenated with \"\\n\"" else "strings concatenated with ${builtins.toJSON sep}";
      check = isString;
      merge = _: defs: builtins.concatStringsSep sep (m.getValues defs);
    };

  # Elements of a list, each merged on its own so that mkIf inside a list works.
  mergeListElements =
    elemType: loc: defs:
    let
      perDefinition = n: def: genList (i: (m.mergeDefinitions (loc ++ [ "[definition ${toString n}-entry ${toString (i + 1)}]" ]) elemType [
        { inherit (def) file; value = builtins.elemAt def.value i; }
      ]).optionalValue) (length def.value);
      all' = concatLists (genList (n: perDefinition (n + 1) (builtins.elemAt defs n)) (length defs));
    in
    map (x: x.value) (filter (x: x ? value) all');

  zipDefinitions = defs: zipAttrsWith (_: values: values) (map (def: mapAttrs (_: value: { inherit (def) file; inherit value; }) def.value) defs);

  types = rec {
    inherit ints separatedString mkOptionType isDerivation;
    port = ints.u16;
    anything = mkOptionType {
      name = "anything";
      description = "anything";
      merge = loc: defs: if all (def: isAttrs def.value && !isDerivation def.value) defs then mapAttrs (name: named: anything.merge (loc ++ [ name ]) named) (zipDefinitions defs) else m.mergeEqualOption loc defs;
    };
    unspecified = mkOptionType { name = "unspecified"; description = "unspecified value"; };
    raw = mkOptionType { name = "raw"; description = "raw value"; merge = m.mergeOneOption; };
    bool = mkOptionType { name = "bool"; description = "boolean"; check = isBool; merge = m.mergeEqualOption; };
    int = mkOptionType { name = "int"; description = "signed integer"; check = isInt; merge = m.mergeEqualOption; };
    str = mkOptionType { name = "str"; description = "string"; check = isString; merge = m.mergeEqualOption; };
    strMatching = pattern: mkOptionType { name = "strMatching ${builtins.toJSON pattern}"; description = "string matching the pattern ${pattern}"; check = x: isString x && match pattern x != null; merge = m.mergeEqualOption; };
    lines = separatedString "\n";
    path = mkOptionType { name = "path"; description = "absolute path"; check = x: isStringLike x && substring 0 1 (toString x) == "/"; merge = m.mergeEqualOption; };
    package = mkOptionType { name = "package"; description = "package"; check = x: isDerivation x || isStorePath x; merge = m.mergeOneOption; };
    shellPackage = package // { check = x: isDerivation x && x ? shellPath; description = "shell package"; };
    attrs = mkOptionType { name = "attrs"; description = "attribute set"; check = isAttrs; merge = _: defs: builtins.foldl' (a: def: a // def.value) { } defs; };
    enum =
      values:
      mkOptionType {
        name = "enum";
        description = "one of ${builtins.concatStringsSep ", " (map builtins.toJSON values)}";
        check = x: elem x values;
        merge = m.mergeEqualOption;
      };
    listOf =
      elemType:
      mkOptionType {
        name = "listOf";
        description = "list of ${elemType.description}";
        check = isList;
        merge = mergeListElements elemType;
        getSubOptions = prefix: elemType.getSubOptions (prefix ++ [ "*" ]);
        nestedTypes = { inherit elemType; };
      };
    attrsOf =
      elemType:
      mkOptionType {
        name = "attrsOf";
        description = "attribute set of ${elemType.description}";
        check = isAttrs;
        merge = loc: defs: mapAttrs (_: x: x.value) (lib.filterAttrs (_: x: x ? value) (mapAttrs (name: named: (m.mergeDefinitions (loc ++ [ name ]) elemType named).optionalValue) (zipDefinitions defs)));
        getSubOptions = prefix: elemType.getSubOptions (prefix ++ [ "<name>" ]);
        nestedTypes = { inherit elemType; };
      };
    # Like attrsOf, but which attributes exist never depends on their values (mkIf inside stays lazy).
    lazyAttrsOf =
      elemType:
      attrsOf elemType
      // {
        name = "lazyAttrsOf";
        description = "lazy attribute set of ${elemType.description}";
        merge = loc: defs: mapAttrs (name: named: let merged = m.mergeDefinitions (loc ++ [ name ]) elemType named; in if merged.isDefined then merged.mergedValue else throw "The option `${m.showOption (loc ++ [ name ])}' is used but not defined.") (zipDefinitions defs);
      };
    nullOr =
      elemType:
      mkOptionType {
        name = "nullOr";
        description = "null or ${elemType.description}";
        check = x: x == null || elemType.check x;
        merge =
          loc: defs:
          let
            nulls = filter (def: def.value == null) defs;
          in
          if nulls == defs then
            null
          else if nulls != [ ] then
            throw "The option `${m.showOption loc}' is defined both null and not null, in ${builtins.concatStringsSep ", " (map (def: "`${def.file}'") defs)}."
          else
            elemType.merge loc defs;
        getSubOptions = elemType.getSubOptions;
        nestedTypes = { inherit elemType; };
      };
    either =
      left: right:
      mkOptionType {
        name = "either";
        description = "${left.description} or ${right.description}";
        check = x: left.check x || right.check x;
        merge =
          loc: defs:
          if all (def: left.check def.value) defs then
            left.merge loc defs
          else if all (def: right.check def.value) defs then
            right.merge loc defs
          else
            m.mergeOneOption loc defs;
        nestedTypes = { inherit left right; };
      };
    oneOf = alternatives: builtins.foldl' either (head alternatives) (builtins.tail alternatives);
    functionTo =
      elemType:
      mkOptionType {
        name = "functionTo";
        description = "function that evaluates to a(n) ${elemType.description}";
        check = isFunction;
        merge = loc: defs: arg: elemType.merge loc (map (def: def // { value = def.value arg; }) defs);
      };
    coercedTo =
      coercedType: coerce: finalType:
      mkOptionType {
        name = "coercedTo";
        description = "${finalType.description} or ${coercedType.description} convertible to it";
        check = x: (coercedType.check x && finalType.check (coerce x)) || finalType.check x;
        merge = loc: defs: finalType.merge loc (map (def: def // { value = if coercedType.check def.value then coerce def.value else def.value; }) defs);
        getSubOptions = finalType.getSubOptions;
      };
    uniq = elemType: elemType // { merge = m.mergeOneOption; };
    passwdEntry = entryType: entryType // { name = "passwdEntry ${entryType.name}"; description = "${entryType.description}, not containing newlines or colons"; check = x: entryType.check x && match ".*[:\n].*" (toString x) == null; };
    singleLineStr = str // { name = "singleLineStr"; description = "(optionally newline-terminated) single-line string"; check = x: isString x && match "[^\n]*\n?" x != null; };
    submoduleWith =
      {
        modules,
        specialArgs ? { },
        shorthandOnlyDefinesConfig ? false,
        description ? "submodule",
      }:
      let
        asModule = def: if isAttrs def.value && shorthandOnlyDefinesConfig then { _file = def.file; config = def.value; } else { _file = def.file; imports = [ def.value ]; };
      in
      mkOptionType {
        name = "submodule";
        inherit description;
        check = x: isAttrs x || isFunction x || isPath x;
        merge =
          loc: defs:
          (lib.evalModules {
            inherit specialArgs;
            prefix = loc;
            modules = modules ++ [ { _module.args.name = lib.last loc; } ] ++ map asModule defs;
          }).config;
        getSubOptions = prefix: (lib.evalModules { inherit specialArgs prefix; modules = modules ++ [ { _module.args.name = "<name>"; } ]; }).options;
        extra = {
          subModules = modules;
          inherit specialArgs shorthandOnlyDefinesConfig;
        };
      };
    submodule =
      modules:
      submoduleWith {
        shorthandOnlyDefinesConfig = true;
        modules = if isList modules then modules else [ modules ];
      };
  };
in
types
