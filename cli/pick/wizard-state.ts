import { defaultName, nameProblem, type WizardAnswers } from "./wizard-answers.js";
import { editLine, type KeyPress } from "./key-press.js";
import type { Completion } from "./path-completion.js";

/** The wizard's five steps, in order. */
export const wizardSteps = ["directory", "template", "name", "advanced", "confirm"] as const;
export type WizardStep = (typeof wizardSteps)[number];

/** The advanced step's rows: two switches, then three lines to type. */
export const advancedRows = [
  { field: "direct", kind: "switch", label: "mount the directory as is (no jj workspace / git worktree)" },
  { field: "muxConfig", kind: "switch", label: "mount my ~/.tmux.conf (read-only)" },
  { field: "gitUser", kind: "line", label: "git user" },
  { field: "gitEmail", kind: "line", label: "git email" },
  { field: "sshKeyPath", kind: "line", label: "ssh key path" },
] as const;

export interface WizardState {
  step: WizardStep;
  answers: WizardAnswers;
  /** The user typed the name: a later directory no longer replaces it. */
  nameEdited: boolean;
  templateIndex: number;
  advancedRow: number;
  /** A line under the step: why Enter did not go on, or what Tab could complete to. */
  note: string | null;
}

/** What the wizard needs to know of the world: the choices, the names taken, the file system. */
export interface WizardEnvironment {
  templates: readonly string[];
  taken: ReadonlySet<string>;
  /** The typed path made absolute (`~`, relative to where pick runs). */
  expand(typed: string): string;
  isDirectory(path: string): boolean;
  /** A jj or git repository: the sandbox gets a workspace or worktree of it unless mounted as is. */
  isRepository(path: string): boolean;
  complete(typed: string): Completion;
}

/** Esc on the first step leaves the wizard; Enter on the last creates the sandbox. */
export type WizardEffect = { kind: "cancel" } | { kind: "create"; answers: WizardAnswers };

type Step = { state: WizardState; effect?: WizardEffect };

export function initialWizardState(directory: string, environment: WizardEnvironment): WizardState {
  const answers = {
    directory,
    template: environment.templates[0] ?? "",
    name: "",
    direct: false,
    muxConfig: true,
    gitUser: "",
    gitEmail: "",
    sshKeyPath: "",
  };
  return { step: "directory", answers, nameEdited: false, templateIndex: 0, advancedRow: 0, note: null };
}

/**
 * The wizard again after its sandbox could not be made: on the summary with the same answers
 * (the name as typed, the template chosen), `note` saying why, so the user can change what was
 * wrong (Esc goes back) or try again, instead of typing it all again.
 */
export function retryWizardState(answers: WizardAnswers, environment: WizardEnvironment, note: string): WizardState {
  const templateIndex = Math.max(0, environment.templates.indexOf(answers.template));
  return { step: "confirm", answers, nameEdited: true, templateIndex, advancedRow: 0, note };
}

/**
 * The wizard after one key: Enter goes on when the step's answer is good (else `note` says why),
 * Esc goes back a step (from the first, it leaves). Each step's own keys are in its function.
 */
export function wizardKey(state: WizardState, press: KeyPress, environment: WizardEnvironment): Step {
  if (press.key.escape === true) {
    const index = wizardSteps.indexOf(state.step);
    const previous = wizardSteps[index - 1];
    return previous === undefined
      ? { state, effect: { kind: "cancel" } }
      : { state: { ...state, step: previous, note: null } };
  }
  if (state.step === "directory") return { state: directoryKey(state, press, environment) };
  if (state.step === "template") return { state: templateKey(state, press, environment) };
  if (state.step === "name") return { state: nameKey(state, press, environment) };
  if (state.step === "advanced") return { state: advancedKey(state, press) };
  const create = press.key.return === true || press.input === "y";
  return create
    ? {
        state,
        effect: {
          kind: "create",
          answers: { ...state.answers, directory: environment.expand(state.answers.directory) },
        },
      }
    : { state };
}

/** Typing a path; Tab completes it; Enter takes it when it is a directory (and names the sandbox after it). */
function directoryKey(state: WizardState, press: KeyPress, environment: WizardEnvironment): WizardState {
  const { answers } = state;
  if (press.key.tab === true) {
    const { value, candidates } = environment.complete(answers.directory);
    const note =
      candidates.length > 1 ? candidates.join("  ") : candidates.length === 0 ? "no directory matches" : null;
    return { ...state, answers: { ...answers, directory: value }, note };
  }
  if (press.key.return === true) {
    const path = environment.expand(answers.directory);
    if (!environment.isDirectory(path)) return { ...state, note: `${path} is not a directory` };
    if (environment.templates.length === 0)
      return { ...state, note: "the config has no templates: add one (forage-ctl template add) first" };
    return {
      ...state,
      step: "template",
      note: null,
      answers: state.nameEdited ? answers : { ...answers, name: defaultName(path) },
    };
  }
  const directory = editLine(answers.directory, press);
  return directory === undefined ? state : { ...state, answers: { ...answers, directory }, note: null };
}

/** ↑/↓ (or k/j) choose among the config's templates. */
function templateKey(state: WizardState, press: KeyPress, environment: WizardEnvironment): WizardState {
  const last = environment.templates.length - 1;
  let index = state.templateIndex;
  if (press.key.upArrow === true || press.input === "k") index = Math.max(0, index - 1);
  else if (press.key.downArrow === true || press.input === "j") index = Math.min(last, index + 1);
  else if (press.key.return === true) return { ...state, step: "name" };
  return {
    ...state,
    templateIndex: index,
    answers: { ...state.answers, template: environment.templates[index] ?? "" },
  };
}

/** Typing the name; Enter goes on only with a name that is valid and free (the problem is shown as it is typed). */
function nameKey(state: WizardState, press: KeyPress, environment: WizardEnvironment): WizardState {
  // The name's problem is on screen already (the view checks it as it is typed): Enter just waits for a good one.
  if (press.key.return === true)
    return nameProblem(state.answers.name, environment.taken) === null
      ? { ...state, step: "advanced", note: null }
      : state;
  const name = editLine(state.answers.name, press);
  return name === undefined ? state : { ...state, nameEdited: true, answers: { ...state.answers, name }, note: null };
}

/** ↑/↓ choose a row, Space flips a switch, typing edits a line, Enter goes on to the summary. */
function advancedKey(state: WizardState, press: KeyPress): WizardState {
  const row = advancedRows[state.advancedRow];
  if (press.key.upArrow === true) return { ...state, advancedRow: Math.max(0, state.advancedRow - 1) };
  if (press.key.downArrow === true || press.key.tab === true)
    return { ...state, advancedRow: Math.min(advancedRows.length - 1, state.advancedRow + 1) };
  if (press.key.return === true) return { ...state, step: "confirm" };
  if (row === undefined) return state;
  if (row.kind === "switch")
    return press.input === " "
      ? { ...state, answers: { ...state.answers, [row.field]: !state.answers[row.field] } }
      : state;
  const value = editLine(state.answers[row.field], press);
  return value === undefined ? state : { ...state, answers: { ...state.answers, [row.field]: value } };
}
