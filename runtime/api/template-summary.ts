import type { Model } from "../../generator/model/model.js";

/** A template as a client that does not load the settings itself sees it (the picker's wizard, the gateway). */
export interface TemplateSummary {
  name: string;
  description: string;
}

export function templateSummaries(settings: Model): TemplateSummary[] {
  return settings.templates.map((template) => ({ name: template.name, description: template.description }));
}
