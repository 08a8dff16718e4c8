// Fields Parley answers that the reference does not define, each explained in docs/decisions.md ("Fields beyond the reference").
export const DOCUMENTED_EXTRAS: readonly string[] = [
  'POST /register.realm_linkifiers[].example_input',
  'POST /register.realm_linkifiers[].reverse_template',
  'POST /register.realm_linkifiers[].alternative_url_templates',
  'GET /events.events[].person.is_deleted',
];
