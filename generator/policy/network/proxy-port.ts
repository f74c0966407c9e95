import type { Model, TemplateModel } from "../../model/model.js";

/** The API proxy port a template's sandboxes reach on their host end, or null when no agent of it is behind the proxy. */
export function templateProxyPort(model: Pick<Model, "host">, template: TemplateModel): number | null {
  return template.agents.some((agent) => agent.auth !== "wrapper") ? model.host.proxy.port : null;
}
