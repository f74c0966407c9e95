import type { Config, WrittenConfig } from "./schema/config.js";
import type { Template, WrittenTemplate } from "./schema/template.js";
import type { SchemaProblem } from "./zod-issues.js";

/** A config in Forage's own spelling, and one note per reference spelling it was written with. */
export interface AdoptedConfig {
  config: Config;
  /** Where each reference spelling was used, and what to write instead (not errors). */
  notes: SchemaProblem[];
}

/**
 * Rewrites the spellings of the reference system (Firefly Forage) that Forage accepts as aliases
 * into Forage's own, once, right after the schema: nothing after config/ ever sees two spellings
 * of one option. The schema has already validated each alias with its target's rules and refused
 * a config that uses both spellings of one option. Each use gives a note naming the new spelling.
 *
 * @example
 *   templates.t: { network: "restricted", allowedHosts: ["api.example.org"] }
 *   becomes templates.t: { network: { mode: "restricted", allow: ["api.example.org"] } }, noting
 *   templates.t.allowedHosts: allowedHosts is the reference's spelling of network.allow: write network: { mode: "restricted", allow: [...] }
 */
export function adoptReferenceSpellings(written: WrittenConfig): AdoptedConfig {
  const notes: SchemaProblem[] = [];
  const { proxyUrl, templates, ...rest } = written;
  if (proxyUrl !== undefined) {
    notes.push({
      path: ["proxyUrl"],
      atKey: true,
      message: `proxyUrl is the reference's spelling of proxy.url, which ${proxyUrlEffect}`,
    });
  } else if (rest.proxy.url !== undefined) {
    notes.push({ path: ["proxy", "url"], atKey: true, message: `proxy.url ${proxyUrlEffect}` });
  }
  const adopted: Record<string, Template> = {};
  for (const [name, template] of Object.entries(templates))
    adopted[name] = adoptTemplate(template, ["templates", name], notes);
  return {
    config: {
      ...rest,
      proxy: proxyUrl === undefined ? rest.proxy : { ...rest.proxy, url: proxyUrl },
      templates: adopted,
    },
    notes,
  };
}

/** Accepted so the reference's configs load, and said to do nothing rather than ignored in silence. */
const proxyUrlEffect =
  "has no effect here: agents reach Forage's API proxy on their sandbox's own link (set proxy.port, and auth on the agents); remove it";

/**
 * `allowedHosts` becomes `network.allow`, beside the template's own mode (or "restricted" when
 * the template names none: the list means nothing in any other mode). The result is the object
 * form of `network`, so it merges with a parent's network object under `extends` exactly as
 * `network: { mode, allow }` written out would.
 */
function adoptTemplate(template: WrittenTemplate, path: string[], notes: SchemaProblem[]): Template {
  const { allowedHosts, ...rest } = template;
  if (allowedHosts === undefined) return rest;
  const network = objectForm(template.network);
  notes.push({
    path: [...path, "allowedHosts"],
    atKey: true,
    message: allowedHostsNote(template.network, network.mode),
  });
  return { ...rest, network: { ...network, allow: allowedHosts } };
}

/** `network` as an object; none written means "restricted", the only mode a host list means anything in. */
function objectForm(network: WrittenTemplate["network"]): Exclude<WrittenTemplate["network"], string | undefined> {
  if (network === undefined) return { mode: "restricted" };
  return typeof network === "string" ? { mode: network } : network;
}

function allowedHostsNote(written: WrittenTemplate["network"], mode: string): string {
  const spelling =
    'allowedHosts is the reference\'s spelling of network.allow: write network: { mode: "restricted", allow: [...] }';
  if (written === undefined) {
    return `${spelling} (with no network option here, allowedHosts means mode "restricted"; not the reference's default "full", nor Forage's "none")`;
  }
  // The schema refused a non-empty list beside another mode; an empty one changes nothing.
  if (mode !== "restricted")
    return `allowedHosts is the reference's spelling of network.allow, which only applies to mode "restricted": remove this empty list`;
  return spelling;
}
