import { describe, expect, it } from "vitest";
import { initialPickerState, keepSelection, pickerKey, type PickerState } from "../../../cli/pick/picker-state.js";
import { keyPresses, typed, type KeyPress } from "../../../cli/pick/key-press.js";

const listed = ["alpha", "beta", "gamma"];
const press = (state: PickerState, ...keys: KeyPress[]) =>
  keys.reduce<{ state: PickerState; effect?: unknown }>(
    (at, key) => (at.effect === undefined ? pickerKey(at.state, key, listed) : at),
    { state },
  );
const enter: KeyPress = { input: "\r", key: { return: true } };
const escape: KeyPress = { input: "", key: { escape: true } };

describe("the picker's keys", () => {
  it("moves with j/k and the arrows, and stays inside the list", () => {
    expect(press(initialPickerState, typed("j"), typed("j"), typed("j")).state.selected).toBe(2);
    expect(
      press(initialPickerState, { input: "", key: { downArrow: true } }, typed("k"), typed("k")).state.selected,
    ).toBe(0);
  });

  it("attaches to the selected sandbox on Enter", () => {
    expect(press(initialPickerState, typed("j"), enter).effect).toEqual({ kind: "attach", name: "beta" });
  });

  it("types a filter after / (so q and d are text there), keeps it on Enter and clears it on Esc", () => {
    const typing = press(initialPickerState, typed("/"), typed("q"), typed("d"));
    expect(typing.state).toMatchObject({ filter: "qd", filtering: true });
    expect(typing.effect).toBeUndefined();
    expect(press(typing.state, enter).state).toMatchObject({ filter: "qd", filtering: false });
    expect(press(typing.state, escape).state).toMatchObject({ filter: "", filtering: false });
  });

  it("asks before d removes: y removes, any other key keeps the sandbox", () => {
    const asking = press(initialPickerState, typed("j"), typed("d"));
    expect(asking.state.confirming).toBe("beta");
    expect(asking.effect).toBeUndefined();
    expect(press(asking.state, typed("y")).effect).toEqual({ kind: "remove", name: "beta" });
    const kept = press(asking.state, typed("n"));
    expect(kept.effect).toBeUndefined();
    expect(kept.state.confirming).toBeNull();
  });

  it("starts the wizard on n and quits on q", () => {
    expect(press(initialPickerState, typed("n")).effect).toEqual({ kind: "create" });
    expect(press(initialPickerState, typed("q")).effect).toEqual({ kind: "quit" });
  });
});

describe("keys that arrive together", () => {
  it("are split into one key each, control characters as the keys they are", () => {
    expect(keyPresses("n\u0015ab\t\r\u007f", {})).toEqual([
      typed("n"),
      { input: "u", key: { ctrl: true } },
      typed("a"),
      typed("b"),
      { input: "\t", key: { tab: true } },
      { input: "\r", key: { return: true } },
      { input: "", key: { backspace: true } },
    ]);
  });

  it("leave a single key as the library reported it", () => {
    expect(keyPresses("", { escape: true })).toEqual([{ input: "", key: { escape: true } }]);
  });
});

describe("the selection when the list is read again", () => {
  const at = (selected: number): PickerState => ({ ...initialPickerState, selected });

  it("stays on the same sandbox when one is listed before it: Enter attaches to the one shown selected", () => {
    expect(keepSelection(at(1), ["alpha", "beta"], ["aardvark", "alpha", "beta"]).selected).toBe(2);
  });

  it("stays on the same sandbox when one before it is gone", () => {
    expect(keepSelection(at(2), ["alpha", "beta", "gamma"], ["beta", "gamma"]).selected).toBe(1);
  });

  it("stays in place, inside the list, when the selected sandbox is gone", () => {
    expect(keepSelection(at(1), ["alpha", "beta", "gamma"], ["alpha", "gamma"]).selected).toBe(1);
    expect(keepSelection(at(2), ["alpha", "beta", "gamma"], ["alpha", "beta"]).selected).toBe(1);
    expect(keepSelection(at(0), ["alpha"], []).selected).toBe(0);
  });
});
