import { z } from "zod";

/*
 * A setting that is one value with a default is described once, here, and every place that
 * handles it is derived from that description: the config's field (optional, with no zod default:
 * a template may `extends` another, and a default filled in while loading would override the
 * parent's value), forage.json's field (the default filling in for files written before the
 * setting existed), the resolved value (the default applied after inheritance), the model's type
 * (inferred from forage.json's schema) and the NixOS option (generated from the config's field).
 */

/** One value, its default (null: "not set", the value schema itself never holds null) and what it means. */
export interface Setting<Value extends z.ZodType, Fallback> {
  readonly value: Value;
  readonly fallback: Fallback;
  readonly description: string;
}

/** Settings kept under one key of their own, e.g. `gvisor: { platform }`. */
export interface SettingGroup<Members extends Settings> {
  readonly members: Members;
  readonly description: string;
}

export type Settings = { readonly [name: string]: Setting<z.ZodType, unknown> | SettingGroup<Settings> };

/** A setting whose default is a value of its own schema. */
export function setting<Value extends z.ZodType>(
  value: Value,
  fallback: z.output<Value>,
  description: string,
): Setting<Value, z.output<Value>> {
  return { value, fallback, description };
}

/** A setting that is null until written (e.g. `runtime`: null leaves the choice to the host). */
export function settingOrNull<Value extends z.ZodType>(value: Value, description: string): Setting<Value, null> {
  return { value, fallback: null, description };
}

export function settingGroup<Members extends Settings>(members: Members, description: string): SettingGroup<Members> {
  return { members, description };
}

type InputSchema<S> =
  S extends SettingGroup<infer Members>
    ? z.ZodOptional<z.ZodObject<InputShape<Members>, z.core.$strict>>
    : S extends Setting<infer Value, unknown>
      ? z.ZodOptional<Value>
      : never;
export type InputShape<M extends Settings> = { -readonly [K in keyof M]: InputSchema<M[K]> };

type ResolvedSchema<S> =
  S extends SettingGroup<infer Members>
    ? z.ZodDefault<z.ZodObject<ResolvedShape<Members>, z.core.$strict>>
    : S extends Setting<infer Value, infer Fallback>
      ? Fallback extends null
        ? z.ZodDefault<z.ZodNullable<Value>>
        : z.ZodDefault<Value>
      : never;
export type ResolvedShape<M extends Settings> = { -readonly [K in keyof M]: ResolvedSchema<M[K]> };

export type Resolved<M extends Settings> = {
  -readonly [K in keyof M]: M[K] extends SettingGroup<infer Members>
    ? Resolved<Members>
    : M[K] extends Setting<infer Value, infer Fallback>
      ? z.output<Value> | Fallback
      : never;
};

function isGroup(entry: Settings[string]): entry is SettingGroup<Settings> {
  return "members" in entry;
}

function mapSettings<M extends Settings, T>(
  settings: M,
  each: (name: string, entry: Settings[string]) => T,
): Record<string, T> {
  return Object.fromEntries(Object.entries(settings).map(([name, entry]) => [name, each(name, entry)]));
}

/** The config's fields: every setting optional, without a default (see the note at the top). */
export function inputShape<M extends Settings>(settings: M): InputShape<M> {
  return mapSettings(settings, (_, entry) =>
    isGroup(entry)
      ? z.strictObject(inputShape(entry.members)).optional().describe(entry.description)
      : entry.value.optional().describe(entry.description),
  ) as InputShape<M>;
}

/** forage.json's fields: every setting present once resolved, its default standing in where a file predates it. */
export function resolvedShape<M extends Settings>(settings: M): ResolvedShape<M> {
  return mapSettings(settings, (_, entry) => {
    if (isGroup(entry))
      return z
        .strictObject(resolvedShape(entry.members))
        .default(() => fallbacks(entry.members))
        .describe(entry.description);
    const fallback = (): unknown => structuredClone(entry.fallback);
    return entry.fallback === null
      ? entry.value.nullable().default(null).describe(entry.description)
      : entry.value.default(fallback).describe(entry.description);
  }) as ResolvedShape<M>;
}

/** The defaults of a group, as one value. */
function fallbacks<M extends Settings>(settings: M): Resolved<M> {
  return resolveSettings(settings, undefined);
}

/** Each setting as written, or its default (a copy: the resolved model owns its values). */
export function resolveSettings<M extends Settings>(settings: M, written: object | undefined): Resolved<M> {
  const values = (written ?? {}) as Record<string, unknown>;
  return mapSettings(settings, (name, entry) =>
    isGroup(entry)
      ? resolveSettings(entry.members, values[name] as object | undefined)
      : (values[name] ?? structuredClone(entry.fallback)),
  ) as Resolved<M>;
}

/** The settings' names, e.g. to pick their resolved values out of a larger object. */
export function settingNames<M extends Settings>(settings: M): (keyof M & string)[] {
  return Object.keys(settings);
}
