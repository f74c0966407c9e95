import { createElement as h, type ReactElement } from "react";
import { Box, Text, useInput } from "ink";
import { groupByRepository, listedNames, type PickerSandbox } from "./sandbox-groups.js";
import { keyPresses } from "./key-press.js";
import { clampSelection, pickerKey, type PickerEffect, type PickerState } from "./picker-state.js";

export interface PickerViewProps {
  sandboxes: readonly PickerSandbox[];
  /** The newest list, which keys must read: one may arrive after a refresh, before the render. */
  latestSandboxes: () => readonly PickerSandbox[];
  state: PickerState;
  /** The newest state, which keys arriving together must build on (see useLatestState). */
  latest: () => PickerState;
  setState: (state: PickerState) => void;
  onEffect: (effect: PickerEffect) => void;
  /** A line about the last action (removed, refused), or what is being done now. */
  message: string | null;
  /** Keys are ignored while an action runs. */
  busy: boolean;
  /** Approvals waiting for an answer, by sandbox. */
  waiting: ReadonlyMap<string, number>;
}

const keysHelp = "/ filter · ↑/↓ or k/j move · Enter attach · n new · d remove · q quit";

/** The sandboxes grouped by repository, the selected one marked, with the keys that act on them. */
export function PickerView(props: PickerViewProps): ReactElement {
  const { state, sandboxes } = props;
  const listedFor = (filter: string): string[] => listedNames(groupByRepository(props.latestSandboxes(), filter));
  const groups = groupByRepository(sandboxes, state.filter);
  const listed = listedNames(groups);
  const selected = listed[clampSelection(state, listed.length).selected];
  useInput(
    (input, key) => {
      for (const press of keyPresses(input, key)) {
        const current = props.latest();
        const listedNow = listedFor(current.filter);
        const next = pickerKey(clampSelection(current, listedNow.length), press, listedNow);
        // A new filter lists again: the selection is kept inside what it shows.
        props.setState(clampSelection(next.state, listedFor(next.state.filter).length));
        // Keys after one that acts (attach, remove, new, quit) are not for this list.
        if (next.effect !== undefined) return props.onEffect(next.effect);
      }
    },
    { isActive: !props.busy },
  );
  const widths = columnWidths(sandboxes);
  return h(
    Box,
    { flexDirection: "column" },
    h(Text, { bold: true }, "Forage sandboxes"),
    h(Text, { dimColor: true }, keysHelp),
    waitingLine(props.waiting),
    sandboxes.length === 0 ? h(Text, null, "No sandboxes yet: n creates one, q quits.") : null,
    sandboxes.length > 0 && listed.length === 0
      ? h(Text, null, `No sandbox matches "${state.filter}" (Esc clears the filter).`)
      : null,
    ...groups.map((group) =>
      h(
        Box,
        { key: group.repo, flexDirection: "column", marginTop: 1 },
        h(Text, { color: "cyan" }, group.repo),
        ...group.sandboxes.map((sandbox) =>
          h(SandboxRow, {
            key: sandbox.name,
            sandbox,
            widths,
            selected: sandbox.name === selected,
            waiting: props.waiting.get(sandbox.name) ?? 0,
          }),
        ),
      ),
    ),
    state.filtering || state.filter !== ""
      ? h(Box, { marginTop: 1 }, h(Text, null, `filter: ${state.filter}${state.filtering ? "▏" : ""}`))
      : null,
    state.confirming === null
      ? null
      : h(
          Text,
          { color: "yellow" },
          `Remove ${state.confirming} (as forage-ctl down does)? y removes it, any other key keeps it.`,
        ),
    props.message === null ? null : h(Text, null, props.message),
  );
}

interface Widths {
  name: number;
  template: number;
  status: number;
}

function columnWidths(sandboxes: readonly PickerSandbox[]): Widths {
  const widest = (pick: (s: PickerSandbox) => string): number => Math.max(0, ...sandboxes.map((s) => pick(s).length));
  return { name: widest((s) => s.name), template: widest((s) => s.template), status: widest((s) => s.status) };
}

/** One sandbox: name, template, running or stopped, and how its workspace is mounted. */
/** What waits for the human, above the list: nothing when nothing does. */
function waitingLine(waiting: ReadonlyMap<string, number>): ReactElement | null {
  const total = [...waiting.values()].reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  return h(
    Text,
    { color: "yellow" },
    `${total} request${total === 1 ? "" : "s"} wait${total === 1 ? "s" : ""} for your answer: forage-ctl approvals`,
  );
}

function SandboxRow({
  sandbox,
  widths,
  selected,
  waiting,
}: {
  sandbox: PickerSandbox;
  widths: Widths;
  selected: boolean;
  waiting: number;
}): ReactElement {
  const statusColor =
    sandbox.status === "running"
      ? "green"
      : sandbox.status === "stopped" || sandbox.status === "checkpointed"
        ? "gray"
        : "yellow";
  return h(
    Text,
    { inverse: selected },
    `${selected ? "›" : " "} ${sandbox.name.padEnd(widths.name)}  ${sandbox.template.padEnd(widths.template)}  `,
    h(Text, { color: statusColor }, sandbox.status.padEnd(widths.status)),
    `  ${sandbox.workspaceMode}`,
    waiting === 0 ? null : h(Text, { color: "yellow" }, `  ⚑ ${waiting} waiting`),
  );
}
