import { createElement as h, useEffect, useRef, useState, type ReactElement } from "react";
import { useApp } from "ink";
import { groupByRepository, listedNames, type PickerSandbox } from "./sandbox-groups.js";
import { initialPickerState, keepSelection, type PickerEffect } from "./picker-state.js";
import { useLatestState } from "./latest-state.js";
import { PickerView } from "./picker-view.js";
import type { WizardAnswers } from "./wizard-answers.js";
import { retryWizardState, type WizardEffect, type WizardEnvironment } from "./wizard-state.js";
import { WizardView } from "./wizard-view.js";

/** What the list shows, read at one time. */
export interface PickerSnapshot {
  sandboxes: readonly PickerSandbox[];
  waiting: ReadonlyMap<string, number>;
}

/** What the user chose when the picker closed: the program does it with the terminal back. */
export type PickChoice =
  { kind: "quit" } | { kind: "attach"; name: string } | { kind: "create"; answers: WizardAnswers };

export interface PickAppProps {
  sandboxes: readonly PickerSandbox[];
  /** The wizard's choices and checks; the names taken are the sandboxes listed. */
  environment: Omit<WizardEnvironment, "taken">;
  directory: string;
  /** Removes a sandbox (as `down` does) and lists them again. */
  remove: (name: string) => Promise<readonly PickerSandbox[]>;
  /** Approvals waiting for an answer, by sandbox (forage-ctl approvals). */
  waiting: ReadonlyMap<string, number>;
  /** Reads the sandboxes and the approvals waiting again; the list follows them every refreshMs. */
  refresh: () => Promise<PickerSnapshot>;
  refreshMs: number;
  /** A line to show first (what happened to the last attach). */
  notice?: string;
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
  const [message, setMessage] = useState<string | null>(props.notice ?? null);
  const [busy, setBusy] = useState(false);
  const [waiting, setWaiting] = useState(props.waiting);
  const close = (choice: PickChoice): void => exit(choice);
  // The list as last shown, for the selection to follow its sandbox into the next one, and for
  // keys that arrive before React renders it (they must read the list their selection indexes).
  const shown = useRef(sandboxes);
  // Bumped by every new list: a read begun before a removal must not bring the removed one back.
  const generation = useRef(0);
  const replaceList = (next: readonly PickerSandbox[]): void => {
    generation.current += 1;
    const listed = (list: readonly PickerSandbox[]): string[] => listedNames(groupByRepository(list, latest().filter));
    setState(keepSelection(latest(), listed(shown.current), listed(next)));
    shown.current = next;
    setSandboxes(next);
  };
  useRefresh(props, busy, generation, (snapshot) => {
    replaceList(snapshot.sandboxes);
    setWaiting(snapshot.waiting);
  });

  const onPicker = (effect: PickerEffect): void => {
    setMessage(null);
    if (effect.kind === "create") return setWizard(true);
    if (effect.kind !== "remove") return close(effect);
    setBusy(true);
    setMessage(`removing ${effect.name}…`);
    props.remove(effect.name).then(
      (listed) => {
        replaceList(listed);
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
    const initial =
      failedUp === undefined
        ? {}
        : { initial: retryWizardState(failedUp.answers, environment, `up failed: ${failedUp.error}`) };
    return h(WizardView, { environment, directory: props.directory, onEffect: onWizard, ...initial });
  }
  const latestSandboxes = (): readonly PickerSandbox[] => shown.current;
  return h(PickerView, {
    sandboxes,
    latestSandboxes,
    state,
    latest,
    setState,
    onEffect: onPicker,
    message,
    busy,
    waiting,
  });
}

/**
 * Reads the list again every refreshMs while the picker is open (statuses change, sandboxes come
 * and go, approvals arrive), one read at a time, none while a removal runs. A read that fails
 * keeps the last list: the next one may succeed, and the picker is no place for a daemon's error.
 */
function useRefresh(
  props: PickAppProps,
  busy: boolean,
  generation: { current: number },
  apply: (snapshot: PickerSnapshot) => void,
): void {
  const reading = useRef(false);
  const busyNow = useRef(busy);
  busyNow.current = busy;
  const applyNow = useRef(apply);
  applyNow.current = apply;
  useEffect(() => {
    let open = true;
    const timer = setInterval(() => {
      if (reading.current || busyNow.current) return;
      reading.current = true;
      const asked = generation.current;
      props
        .refresh()
        .then(
          (snapshot) => {
            if (open && !busyNow.current && generation.current === asked) applyNow.current(snapshot);
          },
          () => undefined,
        )
        .finally(() => (reading.current = false));
    }, props.refreshMs);
    return () => {
      open = false;
      clearInterval(timer);
    };
  }, [props.refresh, props.refreshMs]);
}
