// Entry point: asks whether the session cookie signs anyone in, then shows sign-in or the app.
import { render } from 'preact';
import { account, setCsrfToken } from './api.js';
import { route, routeFromHash, session } from './store.js';
import { App } from './components/App.js';
import 'katex/dist/katex.min.css';
import './styles.css';

window.addEventListener('hashchange', () => {
  route.value = routeFromHash(location.hash);
});

async function start(): Promise<void> {
  try {
    const s = await account('GET', 'session');
    setCsrfToken(s.csrf_token);
    session.value = { user_id: s.user_id, email: s.email, full_name: s.full_name };
  } catch {
    session.value = null;
  }
}

render(<App />, document.getElementById('app')!);
void start();
