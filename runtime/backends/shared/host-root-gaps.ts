import type { TemplateModel } from "../../../generator/model/model.js";

/**
 * What a template asks for that a host-root sandbox cannot give (it runs the host's /usr, with
 * no NixOS system to install packages or write an agent's managed settings): said at every `up`
 * so nothing is ignored in silence. The template's prebuilt NixOS system (runtime nspawn-nix, or
 * extra-container) gives all of it.
 */
export function hostRootGaps(template: TemplateModel): string[] {
  const gaps: string[] = [];
  if (template.extraPackages.length > 0) {
    const names = template.extraPackages.map((path) => path.join("."));
    gaps.push(
      `template ${template.name}'s extraPackages (${names.join(", ")}) are not installed in a sandbox on the host's /usr: the host's own programs are what it has. Its NixOS system installs them (forage-ctl runtime: nspawn-nix).`,
    );
  }
  const withPermissions = template.agents.filter((agent) => agent.permissions !== null).map((agent) => agent.name);
  if (withPermissions.length > 0) {
    gaps.push(
      `template ${template.name}'s permissions for ${withPermissions.join(", ")} are not applied in a sandbox on the host's /usr (nothing writes the agent's managed settings there). Its NixOS system applies them (forage-ctl runtime: nspawn-nix).`,
    );
  }
  return gaps;
}
