# The host module's warnings as a pure function of its settings: today one line per use of the
# reference's spelling `allowedHosts`, naming the spelling to use instead.
{ lib }:
cfg:
lib.concatMap (
  template:
  lib.optional ((template.value.allowedHosts or null) != null)
    "services.forage.templates.${template.name}.allowedHosts is the reference's spelling; write network = { mode = \"restricted\"; allow = [ … ]; } instead."
) (lib.attrsToList cfg.templates)
