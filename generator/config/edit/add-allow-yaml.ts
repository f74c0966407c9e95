import { isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode, type YAMLMap, type YAMLSeq } from "yaml";
import {
  AllowEditRefused,
  inheritedRefusal,
  modeNote,
  restrictedMode,
  type AllowEdit,
  type AllowEditResult,
} from "./allow-edit.js";

/** One text insertion or replacement at a byte offset of the original file. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/**
 * Adds entries to a template's `network.allow` in a YAML config (or a JSON one: JSON is YAML's
 * flow style, and `json` writes its syntax), by splicing text at the offsets the `yaml`
 * package's Document API gives its nodes: every other byte of the file (comments, layout, quoting)
 * stays as it was. Appends to an existing list (block or flow); adds `allow` to a `network`
 * object; writes `network: { mode: restricted, allow: [...] }` in place of a bare mode or where
 * there is no `network` (unless one is inherited: refused). Switching a mode other than
 * restricted is said in the notes. `allowedHosts` (the reference's spelling) is appended to when
 * the template uses it.
 */
export function addAllowToYaml(text: string, edit: AllowEdit, json = false): AllowEditResult {
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0)
    throw new AllowEditRefused(`the file does not parse: ${doc.errors[0]?.message ?? "error"}`);
  const templates = doc.get("templates", true);
  if (!isMap(templates)) throw new AllowEditRefused("`templates` is not written as a map");
  const template = templates.get(edit.template, true);
  if (!isMap(template))
    throw new AllowEditRefused(`template "${edit.template}" is not written as a map under templates`);
  const style = new Style(text, json);
  const notes: string[] = [];
  const splices = ((): Splice[] => {
    // A list written here (network.allow, allowedHosts) replaces an inherited one, whatever else the template writes.
    if (edit.inheritsAllow) throw inheritedRefusal(edit);
    const legacy = template.get("allowedHosts", true);
    if (legacy !== undefined) {
      if (!isSeq(legacy))
        throw new AllowEditRefused(`template "${edit.template}": allowedHosts is not written as a list`);
      return [
        appendItems(
          style,
          legacy,
          edit.entries.map((entry) => style.string(entry)),
        ),
      ];
    }
    const network = template.get("network", true);
    if (network === undefined) {
      notes.push(`created network: { mode: "${restrictedMode}", allow: [...] }`);
      return [addPair(style, template, "network", style.networkObject(edit.entries))];
    }
    if (isScalar(network) && typeof network.value === "string" && network.range) {
      if (network.value !== restrictedMode) notes.push(modeNote(network.value));
      return [{ start: network.range[0], end: network.range[1], text: style.networkFlow(edit.entries) }];
    }
    if (!isMap(network))
      throw new AllowEditRefused(`template "${edit.template}": network is neither a mode nor a map written here`);
    return networkSplices(style, network, edit, notes);
  })();
  let result = text;
  for (const splice of splices.sort((a, b) => b.start - a.start))
    result = result.slice(0, splice.start) + splice.text + result.slice(splice.end);
  return { text: result, notes };
}

function networkSplices(style: Style, network: YAMLMap, edit: AllowEdit, notes: string[]): Splice[] {
  const splices: Splice[] = [];
  const mode = network.get("mode", true);
  if (!isScalar(mode) || typeof mode.value !== "string" || !mode.range)
    throw new AllowEditRefused(`template "${edit.template}": network.mode is not written as a string`);
  if (mode.value !== restrictedMode) {
    notes.push(modeNote(mode.value));
    splices.push({ start: mode.range[0], end: mode.range[1], text: style.string(restrictedMode) });
  }
  const allow = network.get("allow", true);
  const items = edit.entries.map((entry) => style.string(entry));
  if (allow === undefined) splices.push(addPair(style, network, "allow", style.list(items)));
  else if (isSeq(allow)) splices.push(appendItems(style, allow, items));
  else throw new AllowEditRefused(`template "${edit.template}": network.allow is not written as a list`);
  return splices;
}

/** Appends items to a list: a block list gets lines like its first item's, a flow list gets them before its `]`. */
function appendItems(style: Style, seq: YAMLSeq, items: string[]): Splice {
  if (!seq.range) throw new AllowEditRefused("a list without a position");
  if (seq.flow) return appendFlow(style, seq.range, seq.items as YamlNode[], (item) => item.range?.[1], items);
  const indent = style.column(seq.range[0]);
  return style.linesAt(
    seq.range[1],
    items.map((item) => `${indent}- ${item}`),
  );
}

/** Adds `key: value` to a map (a block map: a line after its last entry; a flow map: before its `}`). */
function addPair(style: Style, map: YAMLMap, key: string, value: Block): Splice {
  if (!map.range) throw new AllowEditRefused("a map without a position");
  if (map.flow)
    return appendFlow(
      style,
      map.range,
      map.items,
      (pair) => (isPair(pair) ? (pair.value as YamlNode | null)?.range?.[1] : undefined),
      [`${style.key(key)}: ${value.flow}`],
    );
  const first = map.items[0]?.key as YamlNode | undefined;
  if (first?.range === undefined || first.range === null) throw new AllowEditRefused("an empty block map");
  const indent = style.column(first.range[0]);
  return style.linesAt(map.range[1], [
    `${indent}${style.key(key)}:${value.block.length === 0 ? ` ${value.flow}` : ""}`,
    ...value.block.map((line) => `${indent}${style.unit}${line}`),
  ]);
}

/** Items added to a flow collection: after its last item (on lines of their own when it spans lines), or inside an empty one. */
function appendFlow<T>(
  style: Style,
  range: readonly number[],
  items: T[],
  endOf: (item: T) => number | undefined,
  added: string[],
): Splice {
  const last = items.at(-1);
  if (last === undefined) {
    const open = range[0] ?? 0;
    return { start: open + 1, end: open + 1, text: added.join(", ") };
  }
  const end = endOf(last);
  const firstStart =
    (items[0] as { range?: number[]; key?: { range?: number[] } }).range?.[0] ??
    (items[0] as { key?: { range?: number[] } }).key?.range?.[0];
  if (end === undefined || firstStart === undefined) throw new AllowEditRefused("a flow collection without positions");
  const multiLine = style.text.slice(range[0], end).includes("\n");
  const separator = multiLine ? `,\n${style.column(firstStart)}` : ", ";
  return { start: end, end, text: added.map((item) => `${separator}${item}`).join("") };
}

/** A value to write: flow text, and block lines (relative to the key's indentation) when it has any. */
interface Block {
  flow: string;
  block: string[];
}

/** How new text is spelled here: YAML or JSON, the file's indentation unit. */
class Style {
  readonly unit: string;
  constructor(
    readonly text: string,
    private readonly json: boolean,
  ) {
    this.unit = /^( +)\S/m.exec(text)?.[1] ?? "  ";
  }

  /** Entries start with `*`, a YAML alias outside quotes: always double-quoted (the same in JSON). */
  string(value: string): string {
    return JSON.stringify(value);
  }

  key(name: string): string {
    return this.json ? JSON.stringify(name) : name;
  }

  list(items: string[]): Block {
    return { flow: `[${items.join(", ")}]`, block: this.json ? [] : items.map((item) => `- ${item}`) };
  }

  networkFlow(entries: string[]): string {
    return `{ ${this.key("mode")}: ${this.string(restrictedMode)}, ${this.key("allow")}: [${entries.map((entry) => this.string(entry)).join(", ")}] }`;
  }

  networkObject(entries: string[]): Block {
    if (this.json) return { flow: this.networkFlow(entries), block: [] };
    return {
      flow: this.networkFlow(entries),
      block: [`mode: ${restrictedMode}`, "allow:", ...entries.map((entry) => `${this.unit}- ${this.string(entry)}`)],
    };
  }

  column(offset: number): string {
    return " ".repeat(offset - this.text.lastIndexOf("\n", offset - 1) - 1);
  }

  /** Whole lines inserted at a line start (the end of a block collection), with a newline before them if the file lacks one. */
  linesAt(offset: number, lines: string[]): Splice {
    const before = offset > 0 && this.text[offset - 1] !== "\n" ? "\n" : "";
    return { start: offset, end: offset, text: `${before}${lines.join("\n")}\n` };
  }
}
