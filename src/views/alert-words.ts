// Alert words: GET, POST and DELETE /users/me/alert_words.
import type { RouteList } from '../http/router.js';
import { endpoint } from '../http/endpoint.js';
import { Type, json } from '../core/param-types.js';
import { MAX_ALERT_WORD_LENGTH, userAlertWords, vAlertWords } from '../lib/personal/alert-words.js';
import { doAddAlertWords, doRemoveAlertWords } from '../actions/alert-words.js';

const Words = Type.Object({ alert_words: Type.Array(Type.String()) });
const wordsParam = { alert_words: json(Type.Array(Type.String({ maxLength: MAX_ALERT_WORD_LENGTH })), { required: true, validate: vAlertWords }) };

const getWords = endpoint({
  summary: 'Get all alert words',
  response: Words,
  run: async (req) => ({ alert_words: await req.app.store.read((tx) => userAlertWords(tx, req.user.id)) }),
});

const addWords = endpoint({
  summary: 'Add alert words',
  params: wordsParam,
  response: Words,
  run: async (req, a) => ({ alert_words: await doAddAlertWords(req.app, req.realm, req.user, a.alert_words) }),
});

const removeWords = endpoint({
  summary: 'Remove alert words',
  params: wordsParam,
  response: Words,
  run: async (req, a) => ({ alert_words: await doRemoveAlertWords(req.app, req.realm, req.user, a.alert_words) }),
});

export const routes: RouteList = [['users/me/alert_words', { GET: getWords, POST: addWords, DELETE: removeWords }]];
