import { randomBytes } from "node:crypto";

/** RFC 4648 base32, lower case: no 0/1/8/9, so an id read aloud or retyped is not mistaken for another. */
const alphabet = "abcdefghijklmnopqrstuvwxyz234567";

/** An id's shape: six base32 characters (any case on input). */
export const approvalIdPattern = /^[a-z2-7]{6}$/i;

/**
 * A fresh request id: 6 random base32 characters (30 bits), e.g. `k7q2xm`. Short enough to type,
 * and random so that an id a human mistypes is almost never another pending request's, and a
 * sandbox cannot predict the id of a request it did not cause.
 */
export function newApprovalId(): string {
  return [...randomBytes(6)].map((byte) => alphabet[byte & 31]).join("");
}
