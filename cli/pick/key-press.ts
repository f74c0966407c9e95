/**
 * One key as the terminal-UI library reports it (ink's useInput: the text typed and which
 * special key it was). The picker's and the wizard's state machines take this shape, so they are
 * plain functions tested without a terminal.
 */
export interface KeyPress {
  input: string;
  key: {
    return?: boolean;
    escape?: boolean;
    tab?: boolean;
    upArrow?: boolean;
    downArrow?: boolean;
    backspace?: boolean;
    delete?: boolean;
    ctrl?: boolean;
    meta?: boolean;
  };
}

/** A key press from its text alone (tests, and keys the library reports only as text). */
export const typed = (input: string): KeyPress => ({ input, key: {} });

/**
 * A line edited by a key: text typed (or pasted) is appended, Backspace takes off the last
 * character, Ctrl-U clears it. Undefined when the key does not edit text (Enter, arrows, Esc, control keys).
 */
export function editLine(value: string, press: KeyPress): string | undefined {
  const { key, input } = press;
  // Terminals send DEL (0x7f) for Backspace, which the library reports as delete.
  if (key.backspace === true || key.delete === true) return value.slice(0, -1);
  // Ctrl-U clears the line, as in a shell.
  if (key.ctrl === true && input === "u") return "";
  if (key.ctrl === true || key.meta === true || key.return === true || key.escape === true || key.tab === true)
    return undefined;
  if (input === "" || /[\u0000-\u001f\u007f]/.test(input)) return undefined;
  return value + input;
}

/**
 * The keys in one report of the library. It splits what the terminal sent at escape sequences
 * only, so keys typed fast, pasted or sent together (`tmux send-keys n C-u`) come as one run of
 * characters: `n\u0015/src`. Each character of a run is its own key here, so every key is acted
 * on in order; a control character becomes the key it is (Enter, Tab, Backspace, Ctrl-letter).
 */
export function keyPresses(input: string, key: KeyPress["key"]): KeyPress[] {
  const characters = [...input];
  if (characters.length <= 1) return [{ input, key }];
  return characters.map((character) => {
    if (character === "\r" || character === "\n") return { input: character, key: { return: true } };
    if (character === "\t") return { input: character, key: { tab: true } };
    if (character === "\u007f" || character === "\b") return { input: "", key: { backspace: true } };
    const code = character.charCodeAt(0);
    if (code >= 1 && code <= 26) return { input: String.fromCharCode(code + 96), key: { ctrl: true } };
    return typed(character);
  });
}
