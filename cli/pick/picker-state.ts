import { editLine, type KeyPress } from "./key-press.js";

/** The list's state: the filter (and whether it is being typed), the selection, a pending removal. */
export interface PickerState {
  filter: string;
  filtering: boolean;
  /** Index into the listed sandboxes (listedNames). */
  selected: number;
  /** The sandbox `d` asked to remove, until the answer. */
  confirming: string | null;
}

/** What a key asks of the program, besides a new state. */
export type PickerEffect =
  { kind: "attach"; name: string } | { kind: "remove"; name: string } | { kind: "create" } | { kind: "quit" };

export const initialPickerState: PickerState = { filter: "", filtering: false, selected: 0, confirming: null };

/**
 * The list after one key. `listed` is what the current filter shows (a new filter is applied by
 * the caller, which lists again). Keys: `/` filter (Esc clears it, Enter keeps it), ↑/↓ or k/j
 * move, Enter attaches, `n` new sandbox, `d` remove (asks first: y removes), `q` quits.
 */
export function pickerKey(
  state: PickerState,
  press: KeyPress,
  listed: readonly string[],
): { state: PickerState; effect?: PickerEffect } {
  if (state.confirming !== null) return confirmKey(state, press);
  if (state.filtering) return { state: filterKey(state, press) };
  const { input, key } = press;
  const selected = listed[state.selected];
  if (key.upArrow === true || input === "k") return { state: { ...state, selected: Math.max(0, state.selected - 1) } };
  if (key.downArrow === true || input === "j")
    return { state: { ...state, selected: Math.max(0, Math.min(listed.length - 1, state.selected + 1)) } };
  if (key.return === true && selected !== undefined) return { state, effect: { kind: "attach", name: selected } };
  if (key.escape === true) return { state: { ...state, filter: "", selected: 0 } };
  if (input === "/") return { state: { ...state, filtering: true } };
  if (input === "n") return { state, effect: { kind: "create" } };
  if (input === "q") return { state, effect: { kind: "quit" } };
  if (input === "d" && selected !== undefined) return { state: { ...state, confirming: selected } };
  return { state };
}

/** y removes the sandbox asked about; any other key keeps it. */
function confirmKey(state: PickerState, press: KeyPress): { state: PickerState; effect?: PickerEffect } {
  const name = state.confirming ?? "";
  const next = { ...state, confirming: null };
  return press.input === "y" || press.input === "Y"
    ? { state: next, effect: { kind: "remove", name } }
    : { state: next };
}

/** Typing the filter: every edit starts the selection again at the top. */
function filterKey(state: PickerState, press: KeyPress): PickerState {
  if (press.key.escape === true) return { ...state, filter: "", filtering: false, selected: 0 };
  if (press.key.return === true || press.key.downArrow === true) return { ...state, filtering: false };
  const filter = editLine(state.filter, press);
  return filter === undefined ? state : { ...state, filter, selected: 0 };
}

/** The selection kept inside the list after it shrank (a filter, a removal). */
export function clampSelection(state: PickerState, count: number): PickerState {
  return state.selected < count ? state : { ...state, selected: Math.max(0, count - 1) };
}

/**
 * The selection after the list was read again (a sandbox made, removed or renamed by someone
 * else): on the same sandbox as before, wherever it is listed now, so Enter attaches to the one
 * the user sees selected; kept inside the list when that sandbox is gone.
 */
export function keepSelection(state: PickerState, before: readonly string[], after: readonly string[]): PickerState {
  const index = after.indexOf(before[state.selected] ?? "");
  return index >= 0 ? { ...state, selected: index } : clampSelection(state, after.length);
}
