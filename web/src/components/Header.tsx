// The banner: organization name, the search box (a search narrow), settings and log out.
import { useState } from 'preact/hooks';
import { session, state } from '../store.js';
import { narrowToHash } from '../state/narrow.js';
import { logOut } from './App.js';

export function Header() {
  const [query, setQuery] = useState('');
  function search(e: Event) {
    e.preventDefault();
    const q = query.trim();
    if (q) location.hash = narrowToHash({ kind: 'search', query: q });
  }
  return (
    <header class="header" role="banner">
      <a class="brand" href="#inbox">
        {state.value?.realmName || 'Parley'}
      </a>
      <form role="search" class="search" onSubmit={search}>
        <input id="search" type="search" role="searchbox" aria-label="Search" placeholder="Search messages" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </form>
      <nav class="header-links" aria-label="Account">
        <a href="#settings/profile">Settings</a>
        <span class="me">{session.value?.full_name}</span>
        <button type="button" onClick={() => void logOut()}>
          Log out
        </button>
      </nav>
    </header>
  );
}
