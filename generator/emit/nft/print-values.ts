import type { NftDataType, NftElement, NftElementAtom, NftOp } from "./ast.js";

// Every string reaching these helpers has been validated: quoting is wrapping, never escaping.

/** `"ve-f1"`. */
export function quote(text: string): string {
  return `"${text}"`;
}

/** One item prints bare, several as an anonymous set: `{ tcp, udp }`. */
export function anonymousSet(items: readonly string[]): string {
  return items.length === 1 ? (items[0] ?? "") : `{ ${items.join(", ")} }`;
}

/** `==` is implicit in nft's listing style; `!=` is printed before the value. */
export function opPrefix(op: NftOp | undefined): string {
  return op === "!=" ? "!= " : "";
}

/** Marks print as nft lists them: `0x00000001`. */
export function hexMark(mark: number): string {
  return `0x${mark.toString(16).padStart(8, "0")}`;
}

/** Durations are whole seconds: `60s`. */
export function seconds(value: number): string {
  return `${value}s`;
}

/** One element value of the given type: `"lo"`, `0x00000001`, `10.0.0.0/8`, `443`, `tcp`. */
export function printAtom(type: NftDataType | undefined, atom: NftElementAtom): string {
  if (type === "ifname") return quote(String(atom));
  if (type === "mark") return hexMark(Number(atom));
  return String(atom);
}

/** An element: `1.2.3.4 . 443 timeout 60s`. */
export function printElement(types: readonly NftDataType[], element: NftElement): string {
  const value = element.value;
  const atoms: readonly NftElementAtom[] = Array.isArray(value) ? value : [value as NftElementAtom];
  const printed = atoms.map((atom, index) => printAtom(types[index], atom)).join(" . ");
  return element.timeout === undefined ? printed : `${printed} timeout ${seconds(element.timeout)}`;
}
