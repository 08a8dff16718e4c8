// Alert words: GET, POST and DELETE /users/me/alert_words.
import type { RouteList } from '../http/router.js';
import { authed } from '../http/handlers.js';
import { userAlertWords, vAlertWords } from '../lib/personal/alert-words.js';
import { doAddAlertWords, doRemoveAlertWords } from '../actions/alert-words.js';

const getWords = authed(async (req) => ({ alert_words: await req.app.store.read((tx) => userAlertWords(tx, req.user.id)) }));

const addWords = authed(async (req) => ({
  alert_words: await doAddAlertWords(req.app, req.realm, req.user, req.params.reqJson('alert_words', vAlertWords)),
}));

const removeWords = authed(async (req) => ({
  alert_words: await doRemoveAlertWords(req.app, req.realm, req.user, req.params.reqJson('alert_words', vAlertWords)),
}));

export const routes: RouteList = [['users/me/alert_words', { GET: getWords, POST: addWords, DELETE: removeWords }]];
