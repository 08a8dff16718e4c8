// A narrow term as clients send it: operator, operand, and whether it is negated.
export type NarrowTerm = { operator: string; operand: string | number | number[]; negated: boolean };
