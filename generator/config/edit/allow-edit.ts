/** Entries to add to one template's network allow list (`forage-ctl network NAME --suggest --write`). */
export interface AllowEdit {
  template: string;
  /** Allow entries (`host`, `*.suffix`), already checked against the schema's allowEntry. */
  entries: string[];
  /**
   * The template writes no allow list of its own (no network.allow, no allowedHosts) but inherits
   * one through `extends` (also beside a network object of its own, which is merged key by key):
   * a list written into it would replace that one (lists are replaced, not merged), so the edit
   * is refused instead.
   */
  inheritsAllow: boolean;
}

/** The edited text, and what changed besides the added entries (a created `network`, a mode switched to restricted). */
export interface AllowEditResult {
  text: string;
  notes: string[];
}

/**
 * The edit cannot be made safely (the template or its `network` is not written literally, or it
 * inherits its allow list): the caller prints the change for the user to make instead.
 */
export class AllowEditRefused extends Error {
  override name = "AllowEditRefused";
}

export const restrictedMode = "restricted";

export function modeNote(from: string): string {
  return `network mode "${from}" → "${restrictedMode}" (an allow list only applies to restricted mode)`;
}

export function inheritedRefusal(edit: AllowEdit): AllowEditRefused {
  return new AllowEditRefused(
    `template "${edit.template}" has no network of its own and inherits an allow list through extends: a network written here would replace that list, so add the entries to it yourself (or to the template it extends)`,
  );
}
