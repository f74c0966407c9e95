# Claude Code's managed settings (highest precedence, not overridable from the repository), from
# the agent's permissions; null when the agent has none. The generator has already expanded
# `skipAll` into the explicit allow list, so this only shapes the JSON.
{ lib }:
permissions:
if permissions == null then
  null
else
  builtins.toJSON {
    permissions = {
      allow = permissions.allow or [ ];
      deny = permissions.deny or [ ];
    };
  }
