// Code playgrounds of an organization: validation with the original's texts, and the list.
import type { Tx } from '../store/store.js';
import { badRequest } from '../core/api-error.js';

export const MAX_PLAYGROUND_NAME_LENGTH = 60;
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

/** The template must hold exactly one expression, {code} (also {+code} or {#code}), and expand to an http(s) URL. */
export function checkPlaygroundTemplate(template: string): void {
  const expressions = [...template.matchAll(/\{([^{}]*)\}/g)];
  const rest = template.replace(/\{[^{}]*\}/g, '');
  if (/[{}]/.test(rest) || expressions.length !== 1 || !/^[+#]?code$/.test(expressions[0][1])) throw badRequest('Invalid URL template.');
  const sample = template.replace(/\{[^{}]*\}/, 'x');
  let url: URL;
  try {
    url = new URL(sample);
  } catch {
    throw badRequest('Invalid URL template.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('Invalid URL template.');
}

export function checkPlayground(input: { name: string; pygmentsLanguage: string; urlTemplate: string }): { name: string; pygmentsLanguage: string; urlTemplate: string } {
  const name = input.name.trim();
  if (!name) throw badRequest('Name cannot be blank.');
  if ([...name].length > MAX_PLAYGROUND_NAME_LENGTH) throw badRequest(`Name is too long (limit: ${MAX_PLAYGROUND_NAME_LENGTH} characters).`);
  const lang = input.pygmentsLanguage.trim();
  if (!lang) throw badRequest('Pygments language cannot be blank.');
  if (lang.length > MAX_PYGMENTS_LANGUAGE_LENGTH) throw badRequest(`Pygments language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters).`);
  // The original accepts lexer names and aliases: letters, digits, spaces and a few punctuation marks.
  if (!/^[ a-zA-Z0-9_+\-./#]+$/.test(lang)) throw badRequest('Invalid characters in pygments language');
  checkPlaygroundTemplate(input.urlTemplate);
  return { name, pygmentsLanguage: lang, urlTemplate: input.urlTemplate };
}

export async function realmPlaygroundList(tx: Tx, realmId: number): Promise<{ id: number; name: string; pygments_language: string; url_template: string }[]> {
  return tx.selectFrom('realm_playgrounds').select(['id', 'name', 'pygments_language', 'url_template']).where('realm_id', '=', realmId).orderBy('id').execute();
}
