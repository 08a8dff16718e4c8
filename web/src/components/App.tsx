// The app shell: sign-in when signed out; else header, sidebars, the open page and the live loop.
import { useEffect } from 'preact/hooks';
import { account, setCsrfToken } from '../api.js';
import { connection, route, session, state } from '../store.js';
import { runLive, stopLive } from '../live.js';
import { Login, ResetPassword } from './Login.js';
import { Sidebar } from './Sidebar.js';
import { People } from './People.js';
import { FeedPage } from './Feed.js';
import { Settings } from './Settings.js';
import { Recent } from './Recent.js';
import { Header } from './Header.js';
import { useKeyboard } from './keyboard.js';
import { useTheme } from './theme.js';

export function App() {
  useTheme();
  const s = session.value;
  if (s === undefined) return <p class="loading" role="status">Loading…</p>;
  if (location.pathname === '/reset-password') return <ResetPassword />;
  if (s === null) return <Login />;
  return <Shell />;
}

export async function logOut(): Promise<void> {
  stopLive();
  try {
    await account('POST', 'logout');
  } finally {
    setCsrfToken('');
    state.value = null;
    session.value = null;
  }
}

function Shell() {
  useEffect(() => {
    void runLive();
  }, []);
  useKeyboard();
  const st = state.value;
  const r = route.value;
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to messages
      </a>
      <Header />
      {connection.value === 'reconnecting' && (
        <p class="banner" role="status">
          Reconnecting…
        </p>
      )}
      {!st ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : (
        <div class="columns">
          <Sidebar />
          <main id="main" class="center">
            {r.page === 'settings' ? <Settings tab={r.tab} /> : r.page === 'recent' ? <Recent /> : <FeedPage />}
          </main>
          <People />
        </div>
      )}
    </div>
  );
}
