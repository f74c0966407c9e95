import { isIP } from "node:net";
import type {
  NftDataType,
  NftElement,
  NftElementAtom,
  NftSet,
  NftTableRef,
} from "../../../generator/emit/nft/index.js";

/** One change to a set: elements added (with their timeouts) or deleted, or the set emptied. */
export type SetElementOp =
  { op: "add" | "delete"; set: NftSet; elements: readonly NftElement[] } | { op: "flush"; set: NftSet };

/** Table and set names as nft accepts them unquoted (ours are all of this form). */
const identifier = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const families: readonly string[] = ["inet", "ip", "ip6"];
const fieldTypes: readonly NftDataType[] = ["ipv4_addr", "ipv6_addr", "inet_service"];

/**
 * One request of forage-set-elements (native/forage-set-elements.c): the ops on a table's sets,
 * which it commits as one transaction. Every value is checked here, so a request holds only
 * names, addresses, ports and numbers, separated by single spaces.
 *
 * @example
 * setElementRequest({ family: "inet", name: "forage_f7" }, [{ op: "add", set: allowedSets.v4Port, elements: [{ value: ["192.0.2.7", 443], timeout: 300 }] }]);
 * // "inet forage_f7 add allowed4_port ipv4_addr.inet_service 192.0.2.7,443/300"
 */
export function setElementRequest(table: NftTableRef, ops: readonly SetElementOp[]): string {
  if (!families.includes(table.family) || !identifier.test(table.name))
    throw new Error(`internal: table ${table.family} ${table.name} is not one forage writes`);
  if (ops.length === 0) throw new Error("internal: a set-element request without ops");
  return [table.family, table.name, ...ops.map(opWords)].join(" ");
}

function opWords(op: SetElementOp): string {
  if (!identifier.test(op.set.name)) throw new Error(`internal: set name ${JSON.stringify(op.set.name)}`);
  if (op.op === "flush") return `flush ${op.set.name}`;
  const types = typeof op.set.type === "string" ? [op.set.type] : [...op.set.type];
  if (!types.every((type) => fieldTypes.includes(type)))
    throw new Error(`internal: set ${op.set.name} has a type forage-set-elements does not write`);
  if (op.elements.length === 0) throw new Error(`internal: ${op.op} of no elements in ${op.set.name}`);
  return [
    op.op,
    op.set.name,
    types.join("."),
    ...op.elements.map((element) => elementWord(types, element, op.op === "add")),
  ].join(" ");
}

function elementWord(types: readonly NftDataType[], element: NftElement, withTimeout: boolean): string {
  const atoms: readonly NftElementAtom[] = Array.isArray(element.value)
    ? element.value
    : [element.value as NftElementAtom];
  if (atoms.length !== types.length)
    throw new Error(`internal: element ${JSON.stringify(element.value)} does not fit ${types.join(" . ")}`);
  const fields = atoms.map((atom, index) => fieldWord(types[index] as NftDataType, atom)).join(",");
  const timeout = element.timeout;
  if (!withTimeout || timeout === undefined) return fields;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 0xffffffff)
    throw new Error(`internal: timeout ${timeout}`);
  return `${fields}/${timeout}`;
}

function fieldWord(type: NftDataType, atom: NftElementAtom): string {
  const ok =
    type === "inet_service"
      ? typeof atom === "number" && Number.isInteger(atom) && atom >= 0 && atom <= 65535
      : typeof atom === "string" && isIP(atom) === (type === "ipv4_addr" ? 4 : 6);
  if (!ok) throw new Error(`internal: ${JSON.stringify(atom)} is not an ${type}`);
  return String(atom);
}
