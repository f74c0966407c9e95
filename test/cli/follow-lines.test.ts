import { describe, expect, it } from "vitest";
import { newLines } from "../../cli/commands/observe.js";

describe("logs --follow printing only what is new", () => {
  it("prints everything the first time", () => {
    expect(newLines(undefined, ["a", "b"])).toEqual(["a", "b"]);
  });

  it("prints nothing when the pane did not change", () => {
    expect(newLines(["a", "b", "c"], ["a", "b", "c"])).toEqual([]);
  });

  it("prints the lines after the overlap when the pane scrolled", () => {
    expect(newLines(["a", "b", "c"], ["b", "c", "d", "e"])).toEqual(["d", "e"]);
  });

  it("prints everything when nothing overlaps (the pane was cleared)", () => {
    expect(newLines(["a", "b"], ["x", "y"])).toEqual(["x", "y"]);
  });
});
