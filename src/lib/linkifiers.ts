// Linkifiers: validation of patterns and URL templates, and the ordered list as the API shows it.
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';
import { compileLinkifiers, expandTemplate } from './markdown/linkifiers.js';

export interface LinkifierInput {
  pattern: string;
  urlTemplate: string;
  exampleInput: string | null;
  reverseTemplate: string | null;
  alternativeUrlTemplates: string[];
}

const TEMPLATE_VAR = /\{([+#]?)([A-Za-z0-9_]+)\}/g;

function namedGroups(pattern: string): Set<string> {
  return new Set([...pattern.matchAll(/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]));
}

function checkTemplate(template: string, groups: Set<string> | null, what: string): void {
  // Only simple {var}, {+var} and {#var} expressions; braces elsewhere make an invalid template.
  if (template.replace(TEMPLATE_VAR, '').match(/[{}]/)) throw badRequest(`Invalid ${what}.`);
  const sample = expandTemplate(template, new Proxy({}, { get: () => 'x' }) as Record<string, string>);
  if (!/^(https?:\/\/|\/)/.test(sample)) throw badRequest(`Invalid ${what}.`);
  if (groups) {
    for (const m of template.matchAll(TEMPLATE_VAR)) if (!groups.has(m[2])) throw badRequest(`Group "${m[2]}" in the URL template is not in the linkifier pattern.`);
  }
}

export function checkLinkifier(input: LinkifierInput): void {
  if (!input.pattern.trim()) throw badRequest('Invalid linkifier pattern.');
  if (compileLinkifiers([{ id: 0, pattern: input.pattern, url_template: input.urlTemplate }]).length !== 1) throw badRequest('Invalid linkifier pattern.');
  const groups = namedGroups(input.pattern);
  checkTemplate(input.urlTemplate, groups, 'URL template');
  for (const t of input.alternativeUrlTemplates) checkTemplate(t, null, 'alternative URL template');
  if (input.reverseTemplate !== null && input.exampleInput === null) throw badRequest('example_input is required with reverse_template.');
  if (input.exampleInput !== null) {
    const compiled = compileLinkifiers([{ id: 0, pattern: input.pattern, url_template: input.urlTemplate }])[0];
    compiled.re.lastIndex = 0;
    const m = compiled.re.exec(input.exampleInput);
    if (!m || m[0] !== input.exampleInput) throw badRequest('Example input does not match the linkifier pattern.');
  }
}

export async function realmLinkifiers(tx: Tx, realmId: number): Promise<Record<string, unknown>[]> {
  const rows = await tx.selectFrom('realm_linkifiers').selectAll().where('realm_id', '=', realmId).orderBy('sort_order').orderBy('id').execute();
  return rows.map((r) => ({
    pattern: r.pattern,
    url_template: r.url_template,
    id: r.id,
    example_input: r.example_input,
    reverse_template: r.reverse_template,
    alternative_url_templates: JSON.parse(r.alternative_url_templates) as string[],
  }));
}
