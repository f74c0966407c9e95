import { createElement as h, useState, type ReactElement } from "react";
import { useApp } from "ink";
import type { PickerSandbox } from "./sandbox-groups.js";
import { initialPickerState, type PickerEffect } from "./picker-state.js";
import { useLatestState } from "./latest-state.js";
import { PickerView } from "./picker-view.js";
import type { WizardAnswers } from "./wizard-answers.js";
import { retryWizardState, type WizardEffect, type WizardEnvironment } from "./wizard-state.js";
import { WizardView } from "./wizard-view.js";

/** What the user chose when the picker closed: the program does it with the terminal back. */
export type PickChoice = { kind: "quit" } | { kind: "attach"; name: string } | { kind: "create"; answers: WizardAnswers };

export interface PickAppProps {
  sandboxes: readonly PickerSandbox[];
  /** The wizard's choices and checks; the names taken are the sandboxes listed. */
  environment: Omit<WizardEnvironment, "taken">;
  directory: string;
  /** Removes a sandbox (as `down` does) and lists them again. */
  remove: (name: string) => Promise<readonly PickerSandbox[]>;
  /** Approvals waiting for an answer, by sandbox (forage-ctl approvals). */
  waiting: ReadonlyMap<string, number>;
  /** The wizard's answers whose up failed, and why: the wizard opens on them at once. */
  failedUp?: { answers: WizardAnswers; error: string };
}

/**
 * The picker, and the wizard in its place while one is being filled in (at once when there is
 * no sandbox). Removal happens here, so the list stays on screen; attaching and creating close
 * the app with the choice (ink's exit value).
 */
export function PickApp(props: PickAppProps): ReactElement {
  const { exit } = useApp();
  const [sandboxes, setSandboxes] = useState(props.sandboxes);
  const [wizard, setWizard] = useState(props.sandboxes.length === 0 || props.failedUp !== undefined);
  // Once that wizard is left, n opens a fresh one.
  const [failedUp, setFailedUp] = useState(props.failedUp);
  const [state, latest, setState] = useLatestState(() => initialPickerState);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = (choice: PickChoice): void => exit(choice);

  const onPicker = (effect: PickerEffect): void => {
    setMessage(null);
    if (effect.kind === "create") return setWizard(true);
    if (effect.kind !== "remove") return close(effect);
    setBusy(true);
    setMessage(`removing ${effect.name}…`);
    props.remove(effect.name).then(
      (listed) => {
        setSandboxes(listed);
        setMessage(`removed ${effect.name}`);
        setBusy(false);
      },
      (error: unknown) => {
        setMessage(`could not remove ${effect.name}: ${error instanceof Error ? error.message : String(error)}`);
        setBusy(false);
      },
    );
  };
  const onWizard = (effect: WizardEffect): void => {
    if (effect.kind === "create") return close(effect);
    setFailedUp(undefined);
    setWizard(false);
  };

  if (wizard) {
    const environment = { ...props.environment, taken: new Set(sandboxes.map((s) => s.name)) };
    const initial = failedUp === undefined ? {} : { initial: retryWizardState(failedUp.answers, environment, `up failed: ${failedUp.error}`) };
    return h(WizardView, { environment, directory: props.directory, onEffect: onWizard, ...initial });
  }
  return h(PickerView, { sandboxes, state, latest, setState, onEffect: onPicker, message, busy, waiting: props.waiting });
}
