# Stand-in for how nixpkgs' module system turns an option's definitions into its value
# (lib/modules.nix mergeDefinitions, lib/options.nix merge functions): discharge mkIf/mkMerge,
# keep the highest priority, order, check every value against the type, then merge. The error
# texts are the module system's own, so a test can tell which refusal it met.
{ lib }:
let
  inherit (builtins) all any concatMap filter foldl' head isAttrs isBool isFunction isInt isList isString length tail;
  props = import ./properties.nix;
in
rec {
  showOption = loc: builtins.concatStringsSep "." loc;

  # A short, total rendering of a definition value for error messages.
  showValue =
    value:
    if isString value then
      builtins.toJSON value
    else if isInt value || isBool value || value == null then
      builtins.toJSON value
    else if isFunction value then
      "<function>"
    else if isList value then
      "[ … ${toString (length value)} elements ]"
    else if isAttrs value && (value.type or null) == "derivation" then
      "<derivation ${value.name or "?"}>"
    else if isAttrs value then
      "{ ${builtins.concatStringsSep " " (map (name: "${name} = …;") (builtins.attrNames value))} }"
    else
      "<${builtins.typeOf value}>";

  showDefs = defs: builtins.concatStringsSep "" (map (def: "\n- In `${def.file}': ${showValue def.value}") defs);

  getValues = map (def: def.value);

  mergeEqualOption =
    loc: defs:
    if length defs == 1 then
      (head defs).value
    else
      (foldl' (
        first: def:
        if def.value != first.value then
          throw "The option `${showOption loc}' has conflicting definition values:${showDefs [ first def ]}\nUse `lib.mkForce value` or `lib.mkDefault value` to change the priority on any of these definitions."
        else
          first
      ) (head defs) (tail defs)).value;

  mergeOneOption =
    loc: defs:
    if length defs == 1 then
      (head defs).value
    else
      throw "The option `${showOption loc}' is defined multiple times while it's expected to be unique.\nDefinition values:${showDefs defs}";

  mergeDefaultOption =
    loc: defs:
    let
      list = getValues defs;
    in
    if length list == 1 then
      head list
    else if all isFunction list then
      x: mergeDefaultOption loc (map (def: def // { value = def.value x; }) defs)
    else if all isList list then
      builtins.concatLists list
    else if all isAttrs list then
      foldl' (a: b: a // b) { } list
    else if all isBool list then
      any (x: x) list
    else if all isString list then
      builtins.concatStringsSep "" list
    else if all isInt list && all (x: x == head list) list then
      head list
    else
      throw "Cannot merge definitions of `${showOption loc}'. Definition values:${showDefs defs}";

  # Definitions ({ file, value }) of one option, with or without properties, to its value.
  mergeDefinitions =
    loc: type: defs:
    let
      discharged = concatMap (
        def: map (value: { inherit (def) file; inherit value; }) (builtins.addErrorContext "while evaluating definitions from `${def.file}':" (props.dischargeProperties def.value))
      ) defs;
      overridden = props.filterOverrides discharged;
      final = props.sortProperties overridden.values;
      invalid = filter (def: !type.check def.value) final;
      isDefined = final != [ ];
      mergedValue =
        if invalid != [ ] then
          throw "A definition for option `${showOption loc}' is not of type `${type.description}'. Definition values:${showDefs invalid}"
        else
          type.merge loc final;
    in
    {
      inherit isDefined mergedValue;
      defsFinal = final;
      highestPrio = overridden.highest;
      optionalValue = if isDefined then { value = mergedValue; } else { };
    };
}
