# Stand-in for nixpkgs' lib.evalModules (lib/modules.nix), written from the NixOS manual's
# "Writing NixOS Modules" and the behaviour of lib/modules.nix:
# - a module is a path, a function of { config, options, lib, … } (other arguments come from
#   `_module.args` or specialArgs, looked up by name, lazily), or an attribute set with
#   `imports`/`options`/`config` — or a shorthand set that is all config; imported paths count once;
# - options are declared once (submodule options may be declared again and are combined); a
#   definition of an undeclared option is refused ("The option `…' does not exist.") unless the
#   module set has a freeformType;
# - an option's value merges its definitions (merge.nix); without any: its default, else
#   "… was accessed but has no value defined".
{ lib }:
let
  inherit (builtins) attrNames concatMap elem filter functionArgs genericClosure head isAttrs isFunction isList isPath isString length listToAttrs mapAttrs tail;
  props = import ./properties.nix;
  m = import ./merge.nix { inherit lib; };
  isOption = x: isAttrs x && (x._type or null) == "option";
  unique = list: attrNames (listToAttrs (map (name: { inherit name; value = null; }) list));
  structuralKeys = [ "_file" "key" "imports" "options" "config" "disabledModules" "meta" "freeformType" "_class" ];

  # The module system's own options.
  internalModule = {
    _file = "lib/modules.nix";
    options._module = {
      args = lib.mkOption { type = lib.types.lazyAttrsOf lib.types.raw; default = { }; description = "Arguments passed to each module."; };
      check = lib.mkOption { type = lib.types.bool; default = true; description = "Whether to check whether all option definitions have matching declarations."; };
      freeformType = lib.mkOption { type = lib.types.nullOr lib.types.raw; default = null; description = "Type of definitions that have no declaration."; };
    };
  };

  evalModules =
    {
      modules,
      specialArgs ? { },
      prefix ? [ ],
      class ? null,
    }:
    let
      args = specialArgs // { inherit lib config options; };
      # A function module gets what it asks for by name: specialArgs first, then _module.args.
      applyArgs = key: f: f (args // mapAttrs (name: _: builtins.addErrorContext "while evaluating the module argument `${name}' in \"${key}\":" (args.${name} or config._module.args.${name})) (functionArgs f));

      # Anonymous modules are keyed by where they were imported from, so no two share a key.
      load =
        parent: index: module:
        let
          fromFile = isPath module || isString module;
          file = if fromFile then toString module else parent.file;
          key = if fromFile then file else "${parent.key}:anon-${toString index}";
          loaded = if fromFile then import module else module;
          value = if isFunction loaded then applyArgs key loaded else loaded;
          structured = value ? config || value ? options;
        in
        if !isAttrs value then
          throw "Module `${key}' is not a module: it is ${builtins.typeOf value}, expected a function or an attribute set."
        else
          {
            inherit key;
            file = value._file or file;
            imports = value.imports or [ ];
            options = value.options or { };
            config = if structured then value.config or { } else removeAttrs value structuralKeys;
            freeformType = value.freeformType or null;
          };

      loadAll = parent: list: builtins.genList (i: load parent i (builtins.elemAt list i)) (length list);
      collected = genericClosure {
        startSet = loadAll { file = "<unknown-file>"; key = "<root>"; } ([ internalModule ] ++ modules);
        operator = module: loadAll module module.imports;
      };
      freeformModules = filter (module: module.freeformType != null) collected;
      freeformDefinitions = map (module: { inherit (module) file; value = { _module.freeformType = module.freeformType; }; }) freeformModules;

      merged = mergeLevel prefix (map (mod: { inherit (mod) file; value = mod.options; }) collected) (map (mod: { inherit (mod) file; value = mod.config; }) collected ++ freeformDefinitions);
      options = merged.options;
      declaredConfig = mapOptionValues options;
      freeformType = declaredConfig._module.freeformType;
      freeformConfig = (m.mergeDefinitions prefix freeformType (map (def: { inherit (def) file; value = lib.setAttrByPath def.loc def.value; }) merged.unmatched)).mergedValue;
      config = if freeformType == null || merged.unmatched == [ ] then declaredConfig else lib.recursiveUpdate freeformConfig declaredConfig;

      checkUnmatched =
        if declaredConfig._module.check && freeformType == null && merged.unmatched != [ ] then
          let
            first = head merged.unmatched;
          in
          throw "The option `${m.showOption (prefix ++ first.loc)}' does not exist. Definition values:${m.showDefs [ first ]}"
        else
          null;
      checked = builtins.seq checkUnmatched;
    in
    {
      _type = "configuration";
      config = checked (removeAttrs config [ "_module" ]);
      options = checked options;
      _module = checked config._module;
    };

  # One level of the option tree: declarations and definitions (properties pushed down) by name.
  mergeLevel =
    loc: decls: defs:
    let
      optionDecls = filter (decl: isOption decl.value) decls;
      pushed = concatMap (def: map (value: { inherit (def) file; inherit value; }) (props.pushDownProperties def.value)) defs;
      notSets = filter (def: !isAttrs def.value) pushed;
      declNames = unique (concatMap (decl: attrNames decl.value) decls);
      defNames = unique (concatMap (def: attrNames def.value) pushed);
      namedDecls = name: map (decl: { inherit (decl) file; value = decl.value.${name}; }) (filter (decl: decl.value ? ${name}) decls);
      namedDefs = name: map (def: { inherit (def) file; value = def.value.${name}; }) (filter (def: def.value ? ${name}) pushed);
      children = listToAttrs (map (name: { inherit name; value = mergeLevel (loc ++ [ name ]) (namedDecls name) (namedDefs name); }) declNames);
      undeclared = filter (name: !(elem name declNames)) defNames;
    in
    if optionDecls != [ ] then
      if length optionDecls != length decls then
        throw "The option `${m.showOption loc}' in `${(head optionDecls).file}' is a prefix of options in `${(head (filter (decl: !isOption decl.value) decls)).file}'."
      else
        { options = evalOption loc (combineDeclarations loc optionDecls) defs; unmatched = [ ]; }
    else if notSets != [ ] then
      { options = { }; unmatched = map (def: def // { loc = [ ]; }) notSets; }
    else
      {
        options = mapAttrs (_: child: child.options) children;
        unmatched =
          concatMap (name: map (def: def // { loc = [ name ]; }) (namedDefs name)) undeclared
          ++ concatMap (name: map (def: def // { loc = [ name ] ++ def.loc; }) children.${name}.unmatched) declNames;
      };

  # Two types of one option combine only when both are submodules, or the same container
  # (attrsOf, lazyAttrsOf, listOf) of types that combine; null when they do not.
  combineTypes =
    a: b:
    if a ? subModules && b ? subModules then
      lib.types.submoduleWith { modules = a.subModules ++ b.subModules; shorthandOnlyDefinesConfig = true; }
    else if a.name == b.name && a.nestedTypes ? elemType && b.nestedTypes ? elemType then
      let
        elem = combineTypes a.nestedTypes.elemType b.nestedTypes.elemType;
      in
      if elem == null then null else lib.types.${a.name} elem
    else
      null;

  # Several declarations of one option are allowed only when their types combine (submodules).
  combineDeclarations =
    loc: decls:
    let
      first = head decls;
      combined = builtins.foldl' (type: decl: if type == null then null else combineTypes type decl.value.type) first.value.type (tail decls);
    in
    if length decls == 1 then
      first // { value = first.value // { declarations = [ first.file ]; }; }
    else if combined != null then
      first // { value = first.value // { type = combined; declarations = map (decl: decl.file) decls; }; }
    else
      throw "The option `${m.showOption loc}' in `${(head (tail decls)).file}' is already declared in `${first.file}'.";

  evalOption =
    loc: decl: defs:
    let
      option = decl.value;
      defaults = if option ? default then [ { file = decl.file; value = props.mkOptionDefault option.default; } ] else [ ];
      merged = m.mergeDefinitions loc option.type (defs ++ defaults);
      apply = option.apply or (x: x);
    in
    option
    // {
      inherit loc;
      inherit (merged) isDefined highestPrio;
      # As lib/modules.nix: the files of the definitions that won (an overridden one is not listed).
      files = map (def: def.file) merged.defsFinal;
      definitions = map (def: def.value) merged.defsFinal;
      value = builtins.addErrorContext "while evaluating the option `${m.showOption loc}':" (
        if merged.isDefined then apply merged.mergedValue else throw "The option `${m.showOption loc}' was accessed but has no value defined. Try setting the option."
      );
    };

  mapOptionValues = tree: mapAttrs (_: node: if isOption node then node.value else mapOptionValues node) tree;
in
{
  inherit evalModules isOption;
  mkOption = attrs: attrs // { _type = "option"; };
}
