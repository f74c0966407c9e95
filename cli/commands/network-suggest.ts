import { readFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import type { AllowEditResult } from "../../generator/config/edit/allow-edit.js";
import {
  suggestAllowlist,
  type AllowSuggestion,
  type SeenName,
} from "../../generator/policy/network/allow-suggestion.js";
import type { NetworkView } from "../../runtime/sandbox/network-operations.js";
import { settingsFile } from "../../runtime/settings/settings-file.js";
import { UserError } from "../../runtime/core/errors.js";
import { printJson } from "../output.js";
import { isGeneratedSettings } from "../../runtime/settings/load-settings.js";
import { confirmOnTerminal } from "../terminal-question.js";

/**
 * The names to make permanent, each with where it came from: those learned, those the human
 * approved in ask mode for this run (`once`: the guard's admitted names), and the sandbox's own
 * allowlist entries beyond its template's (`always` answers, and `--allow`), where they are names.
 */
export function seenNames(view: NetworkView): SeenName[] {
  const ownNames = view.policy.allow.filter(
    (entry) => !view.templatePolicy.allow.includes(entry) && /^[a-z0-9.-]+(:\d{1,5})?$/.test(entry),
  );
  // The names approved for this run, each on the port it was approved on (a guard from before ports were shown: its names alone).
  const admitted =
    view.guard?.admissions?.map(({ name, port }): SeenName => ({ name, source: "once", port })) ??
    (view.guard?.admitted ?? []).map((name): SeenName => ({ name, source: "once" }));
  return [
    ...view.learned.map((learned): SeenName => ({ name: learned.name, source: "learned" })),
    ...admitted,
    ...ownNames.map((entry): SeenName => {
      const [name = "", port] = entry.split(":");
      return port === undefined ? { name, source: "always" } : { name, source: "always", port: Number(port) };
    }),
  ];
}

/**
 * What no suggestion may cover: the sandbox's and its template's deny lists, and the names the
 * human denied when asked (the denial records of ask mode).
 */
export function deniedEntries(view: NetworkView): string[] {
  const asked = view.deniedNames
    .filter((denied) => denied.rule.startsWith("denied when asked"))
    .map((denied) => denied.name);
  return [...new Set([...view.policy.deny, ...view.templatePolicy.deny, ...asked])];
}

export interface SuggestOptions {
  write: boolean;
  /** With write: write without asking (scripts); without it, a terminal is asked, and no terminal refuses. */
  yes: boolean;
  json: boolean;
  config: string | undefined;
}

/** `network NAME --suggest [--write [--yes]]`: prints the allow list change, and with --write makes it in the config file once confirmed. */
export async function suggestCommand(view: NetworkView, options: SuggestOptions): Promise<void> {
  if (!options.write) {
    const suggestion = suggestAllowlist(seenNames(view), view.templatePolicy.allow, deniedEntries(view));
    if (options.json) return printJson({ sandbox: view.name, template: view.template, ...suggestion, written: null });
    return void process.stdout.write(describeSuggestion(view.template, suggestion, view.templatePolicy.allow));
  }
  return writeSuggestion(view, options);
}

/** The config file --write edits, as read now, and the template's allow list in it (flattened: inherited entries count). */
async function editTarget(view: NetworkView, config: string | undefined) {
  const file = await settingsFile(config);
  const text = await readFile(file.path, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new UserError(
      `--write: cannot read ${file.shown} (${error.code ?? error.message}): pass --config with the config file to edit`,
      "config",
    );
  });
  if (file.origin === "default" || isGeneratedSettings(text)) {
    throw new UserError(
      `--write: ${file.shown} is a generated forage.json: edit the config it was generated from (pass it with --config, or run this where it is), then forage-ctl generate`,
      "config",
    );
  }
  const [{ loadConfig }, { flattenTemplate }] = await Promise.all([
    import("../../generator/config/load-config.js"),
    import("../../generator/config/merge-templates.js"),
  ]);
  const own = (await loadConfig(file.path)).config.templates[view.template];
  if (own === undefined)
    throw new UserError(
      `--write: ${file.shown} has no template "${view.template}" (the sandbox's): pass --config with the config it came from`,
      "template-not-found",
    );
  const allowAfterLoad = async (): Promise<string[]> =>
    allowOf(flattenTemplate((await loadConfig(file.path)).config, view.template));
  const templateAllow = await allowAfterLoad();
  // Its own written list, if any: a network object of its own without one still inherits the parent's.
  const ownAllow = own.allowedHosts ?? (typeof own.network === "object" ? own.network.allow : undefined);
  return {
    file,
    text,
    templateAllow,
    inheritsAllow: ownAllow === undefined && templateAllow.length > 0,
    allowAfterLoad,
  };
}

/** --write: the suggestion shown and confirmed (confirmed()), then made in the config file, which must still hold all it allowed. */
async function writeSuggestion(view: NetworkView, options: SuggestOptions): Promise<void> {
  const { file, text, templateAllow, inheritsAllow, allowAfterLoad } = await editTarget(view, options.config);
  const suggestion = suggestAllowlist(seenNames(view), templateAllow, deniedEntries(view));
  const entries = suggestion.add.map((each) => each.entry);
  const described = describeSuggestion(view.template, suggestion, templateAllow);
  const unwritten = (note: string): void =>
    options.json
      ? printJson({
          sandbox: view.name,
          template: view.template,
          file: file.path,
          ...suggestion,
          written: false,
          notes: [],
        })
      : void process.stdout.write(note);
  if (entries.length === 0) return unwritten(`${described}${file.shown}: nothing to write\n`);
  const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
  if (
    !(await confirmed(
      options,
      `Add ${count} to template "${view.template}"'s network.allow in ${file.shown}?`,
      described,
    ))
  )
    return unwritten(`${file.shown}: nothing written\n`);
  let edited: AllowEditResult;
  try {
    edited = await editConfigText(file.path, text, { template: view.template, entries, inheritsAllow });
  } catch (error) {
    if ((error as Error).name !== "AllowEditRefused") throw error;
    process.stdout.write(described);
    throw new UserError(
      `--write: ${file.shown}: cannot edit it safely: ${(error as Error).message}. Make the change above by hand`,
      "config",
    );
  }
  await writeFile(file.path, edited.text);
  try {
    // The edit must validate and leave the template allowing all it did and the new entries: a
    // list inherited in a way the editor cannot see (a spread) would otherwise be lost silently.
    const allowAfter = await allowAfterLoad();
    const lost = [...templateAllow, ...entries].filter((entry) => !allowAfter.includes(entry));
    if (lost.length > 0) {
      process.stdout.write(described);
      throw new UserError(
        `--write: ${file.shown}: the edit would leave template "${view.template}" without ${lost.join(", ")} (an allow list it inherits); the file is as it was. Make the change above by hand`,
        "config",
      );
    }
  } catch (error) {
    await writeFile(file.path, text); // the user's file exactly as it was when the edit does not hold
    throw error;
  }
  if (options.json)
    return printJson({
      sandbox: view.name,
      template: view.template,
      file: file.path,
      ...suggestion,
      written: true,
      notes: edited.notes,
    });
  process.stdout.write(
    `${file.shown}: added ${count} to template "${view.template}"'s network.allow${edited.notes.map((note) => `\n  ${note}`).join("")}\n`,
  );
}

/**
 * Whether to write: yes with --yes; else the change is shown and the terminal asked (y or yes);
 * with no terminal to ask on, a usage error, so a script never writes what nobody saw nor hangs.
 */
async function confirmed(options: SuggestOptions, question: string, change: string): Promise<boolean> {
  if (options.yes) {
    if (!options.json) process.stdout.write(change);
    return true;
  }
  const noTerminal = `--write: ${question.replace(/\?$/, "")}: asks first, and there is no terminal to ask on (stdin is not one): run it on a terminal, or add --yes to write without asking`;
  return confirmOnTerminal(question, change, noTerminal);
}

async function editConfigText(
  file: string,
  text: string,
  edit: { template: string; entries: string[]; inheritsAllow: boolean },
): Promise<AllowEditResult> {
  const extension = extname(file);
  // Loaded on demand: ts-morph alone takes most of a second to import.
  if (extension === ".ts" || extension === ".mts")
    return (await import("../../generator/config/edit/add-allow-typescript.js")).addAllowToTypescript(text, edit);
  return (await import("../../generator/config/edit/add-allow-yaml.js")).addAllowToYaml(
    text,
    edit,
    extension === ".json",
  );
}

/** The suggestion as text: the entries to add (what each covers, from where), what was left out and why, and the template's network after it. */
export function describeSuggestion(
  template: string,
  suggestion: AllowSuggestion,
  templateAllow: readonly string[],
): string {
  const lines: string[] = [];
  if (suggestion.add.length === 0) lines.push(`template "${template}": nothing to add to network.allow`);
  else {
    lines.push(`template "${template}": add to network.allow`);
    const width = Math.max(...suggestion.add.map((each) => each.entry.length));
    for (const each of suggestion.add) {
      const covers = each.entry.startsWith("*.") ? `covers ${each.names.join(", ")}` : "";
      lines.push(
        `  ${each.entry.padEnd(width)}  ${[covers, `(${each.sources.join(", ")})`].filter((part) => part !== "").join(" ")}`,
      );
    }
  }
  if (suggestion.covered.length > 0)
    lines.push(`already allowed: ${suggestion.covered.map((each) => `${each.name} (by ${each.by})`).join(", ")}`);
  if (suggestion.skipped.length > 0)
    lines.push(`left out: ${suggestion.skipped.map((each) => `${each.name} (${each.reason})`).join(", ")}`);
  if (suggestion.add.length > 0) {
    const allow = [...templateAllow, ...suggestion.add.map((each) => each.entry)]
      .map((entry) => JSON.stringify(entry))
      .join(", ");
    lines.push("", "the template's network would then be:", `  network: { mode: "restricted", allow: [${allow}] }`);
  }
  return `${lines.join("\n")}\n`;
}

/** A flattened template's allow list (none unless its network is an object with one). */
function allowOf(template: { network?: unknown }): string[] {
  const network = template.network;
  return typeof network === "object" && network !== null && "allow" in network && Array.isArray(network.allow)
    ? (network.allow as string[])
    : [];
}
