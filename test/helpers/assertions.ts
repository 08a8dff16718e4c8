// Assertions shared by the API suites.
import assert from 'node:assert/strict';

/**
 * Asserts an error envelope with this message. Status defaults to 400 and code to BAD_REQUEST; a
 * number among `expected` is the status, a string the code. Returns the body, for further checks.
 */
export async function expectError(p: Promise<{ status: number; body: Record<string, any> }>, msg: string, ...expected: (number | string)[]): Promise<Record<string, any>> {
  const status = expected.find((x): x is number => typeof x === 'number') ?? 400;
  const code = expected.find((x): x is string => typeof x === 'string') ?? 'BAD_REQUEST';
  const r = await p;
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.msg, msg);
  assert.equal(r.body.code, code);
  return r.body;
}
