import { createElement as h, type ReactElement } from "react";
import { Box, Text, useInput } from "ink";
import { keyPresses } from "./key-press.js";
import { useLatestState } from "./latest-state.js";
import { nameProblem } from "./wizard-answers.js";
import {
  advancedRows,
  initialWizardState,
  wizardKey,
  wizardSteps,
  type WizardEffect,
  type WizardEnvironment,
  type WizardState,
} from "./wizard-state.js";

export interface WizardViewProps {
  environment: WizardEnvironment;
  /** Where the directory step starts (the directory pick runs in). */
  directory: string;
  onEffect: (effect: WizardEffect) => void;
  /** Where it starts instead of the first step (the summary again after a failed up). */
  initial?: WizardState;
}

const stepTitles: Record<WizardState["step"], string> = {
  directory: "Project directory (Tab completes, Ctrl-U clears)",
  template: "Template (↑/↓ choose)",
  name: "Sandbox name",
  advanced: "Advanced (↑/↓ choose, Space switches, type to edit)",
  confirm: "Create this sandbox?",
};

/** The creation wizard: one step at a time, Enter goes on, Esc goes back. */
export function WizardView(props: WizardViewProps): ReactElement {
  const { environment } = props;
  const [state, latest, setState] = useLatestState(
    () => props.initial ?? initialWizardState(props.directory, environment),
  );
  useInput((input, key) => {
    for (const press of keyPresses(input, key)) {
      const next = wizardKey(latest(), press, environment);
      setState(next.state);
      if (next.effect !== undefined) return props.onEffect(next.effect);
    }
  });
  const number = wizardSteps.indexOf(state.step) + 1;
  return h(
    Box,
    { flexDirection: "column" },
    h(Text, { bold: true }, `New sandbox · step ${number} of ${wizardSteps.length}: ${stepTitles[state.step]}`),
    h(
      Text,
      { dimColor: true },
      state.step === "directory" ? "Enter goes on · Esc leaves the wizard" : "Enter goes on · Esc goes back",
    ),
    h(Box, { flexDirection: "column", marginTop: 1 }, stepBody(state, environment)),
    state.note === null ? null : h(Text, { color: "yellow" }, state.note),
  );
}

function stepBody(state: WizardState, environment: WizardEnvironment): ReactElement | ReactElement[] {
  const { answers } = state;
  switch (state.step) {
    case "directory":
      return h(Text, null, `> ${answers.directory}▏`);
    case "template":
      return environment.templates.map((name, index) =>
        h(
          Text,
          { key: name, inverse: index === state.templateIndex },
          `${index === state.templateIndex ? "›" : " "} ${name}`,
        ),
      );
    case "name": {
      const problem = nameProblem(answers.name, environment.taken);
      return [
        h(Text, { key: "line" }, `> ${answers.name}▏`),
        h(Text, { key: "check", color: problem === null ? "green" : "red" }, problem ?? "ok"),
      ];
    }
    case "advanced":
      return advancedRows.map((row, index) => {
        const value =
          row.kind === "switch"
            ? answers[row.field]
              ? "[x]"
              : "[ ]"
            : `${answers[row.field]}${index === state.advancedRow ? "▏" : ""}`;
        const text = row.kind === "switch" ? `${value} ${row.label}` : `${row.label}: ${value}`;
        return h(
          Text,
          { key: row.field, inverse: index === state.advancedRow },
          `${index === state.advancedRow ? "›" : " "} ${text}`,
        );
      });
    case "confirm":
      return summary(state, environment);
  }
}

/** The choices, as up will get them. */
function summary(state: WizardState, environment: WizardEnvironment): ReactElement[] {
  const { answers } = state;
  const directory = environment.expand(answers.directory);
  const own = environment.isRepository(directory) && !answers.direct;
  const lines = [
    `directory   ${directory}`,
    `workspace   ${own ? "a jj workspace or git worktree of it, of its own" : "the directory itself, as is"}`,
    `template    ${answers.template}`,
    `name        ${answers.name}`,
    `tmux config ${answers.muxConfig ? "mounted" : "not mounted"}`,
    ...(answers.gitUser === "" ? [] : [`git user    ${answers.gitUser}`]),
    ...(answers.gitEmail === "" ? [] : [`git email   ${answers.gitEmail}`]),
    ...(answers.sshKeyPath === "" ? [] : [`ssh key     ${answers.sshKeyPath}`]),
    "",
    "Enter (or y) creates it and attaches; Esc goes back.",
  ];
  return lines.map((line, index) => h(Text, { key: String(index) }, line));
}
