# Stand-in for the definition properties of nixpkgs' module system (lib/modules.nix): mkIf,
# mkMerge, mkOverride (mkDefault, mkForce, option defaults) and mkOrder, with how the module system
# pushes them into attribute sets, discharges them, keeps the highest priority and orders lists.
# Written from the behaviour documented in the NixOS manual ("Option Definitions") and lib/modules.nix.
let
  inherit (builtins) concatMap filter foldl' isBool mapAttrs sort;
  typeOf = value: if builtins.isAttrs value then value._type or "" else "";
in
rec {
  mkIf = condition: content: { _type = "if"; inherit condition content; };
  mkMerge = contents: { _type = "merge"; inherit contents; };
  mkOverride = priority: content: { _type = "override"; inherit priority content; };
  mkOptionDefault = mkOverride 1500;
  mkDefault = mkOverride 1000;
  mkForce = mkOverride 50;
  defaultOverridePriority = 100;
  mkOrder = priority: content: { _type = "order"; inherit priority content; };
  mkBefore = mkOrder 500;
  mkAfter = mkOrder 1500;
  defaultOrderPriority = 1000;

  # An attribute set under mkIf/mkMerge/mkOverride becomes one set per content, each attribute
  # wrapped in the same property; conditions are not evaluated here (they may read config).
  pushDownProperties =
    cfg:
    let
      kind = typeOf cfg;
    in
    if kind == "merge" then
      concatMap pushDownProperties cfg.contents
    else if kind == "if" then
      map (mapAttrs (_: mkIf cfg.condition)) (pushDownProperties cfg.content)
    else if kind == "override" then
      map (mapAttrs (_: mkOverride cfg.priority)) (pushDownProperties cfg.content)
    else
      [ cfg ];

  # The values a definition stands for once mkIf and mkMerge are decided.
  dischargeProperties =
    value:
    let
      kind = typeOf value;
    in
    if kind == "merge" then
      concatMap dischargeProperties value.contents
    else if kind == "if" then
      if !isBool value.condition then
        throw "mkIf called with a non-Boolean condition"
      else if value.condition then
        dischargeProperties value.content
      else
        [ ]
    else
      [ value ];

  # Only the definitions of the highest priority (lowest number) count; the wrapper is removed.
  filterOverrides =
    defs:
    let
      priorityOf = def: if typeOf def.value == "override" then def.value.priority else defaultOverridePriority;
      highest = foldl' (best: def: if priorityOf def < best then priorityOf def else best) 9999 defs;
      strip = def: if typeOf def.value == "override" then def // { value = def.value.content; } else def;
    in
    {
      inherit highest;
      values = map strip (filter (def: priorityOf def == highest) defs);
    };

  # mkBefore/mkAfter: a stable sort by order priority, then the wrapper is removed.
  sortProperties =
    defs:
    let
      orderOf = def: if typeOf def.value == "order" then def.value.priority else defaultOrderPriority;
      strip = def: if typeOf def.value == "order" then def // { value = def.value.content; } else def;
      indexed = builtins.genList (i: { index = i; def = builtins.elemAt defs i; }) (builtins.length defs);
      ordered = sort (a: b: orderOf a.def < orderOf b.def || (orderOf a.def == orderOf b.def && a.index < b.index)) indexed;
    in
    map (entry: strip entry.def) ordered;
}
