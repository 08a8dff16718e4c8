// The message feed of the open narrow: a virtualized list (only what is on screen is in the page),
// grouped by date, conversation and sender; loads more at both ends; marks what is seen as read.
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef } from 'preact/hooks';
import { Virtualizer, elementScroll, measureElement, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import { currentFeedKey, currentNarrow, messages, selectedId, state, typing } from '../store.js';
import { loadFeed, loadMore, markSeen } from '../feed-loader.js';
import { narrowToHash, type Narrow } from '../state/narrow.js';
import { dmKey, type ClientState } from '../state/model.js';
import type { Message } from '../state/messages.js';
import { dayOf } from '../time.js';
import { MessageView } from './MessageView.js';
import { Compose } from './Compose.js';

function title(n: Narrow, st: ClientState): string {
  switch (n.kind) {
    case 'inbox':
      return 'Inbox';
    case 'stream':
      return `#${st.channels[n.stream_id]?.name ?? 'unknown channel'}`;
    case 'topic':
      return `#${st.channels[n.stream_id]?.name ?? 'unknown channel'} › ${n.topic}`;
    case 'dm':
      return `Direct messages with ${n.users.map((id) => st.users[id]?.full_name ?? 'Unknown user').join(', ')}`;
    case 'mentions':
      return 'Mentions';
    case 'starred':
      return 'Starred messages';
    case 'search':
      return `Search: ${n.query}`;
  }
}

export function FeedPage() {
  const st = state.value!;
  const narrow = currentNarrow.value;
  const key = currentFeedKey.value;
  useEffect(() => {
    if (!messages.value.feeds[key]) void loadFeed(narrow);
    selectedId.value = null;
  }, [key]);
  return (
    <div class="feed-page">
      <h1 class="feed-title">{title(narrow, st)}</h1>
      <MessageList feedKey={key} />
      <TypingNotice />
      <Compose />
    </div>
  );
}

/** The conversation a message belongs to, for grouping. */
const conversationOf = (m: Message) => (m.type === 'stream' ? `s${m.stream_id}:${m.subject.toLowerCase()}` : `d${m.dm_users.join(',')}`);

function MessageList({ feedKey }: { feedKey: string }) {
  const st = state.value!;
  const feed = messages.value.feeds[feedKey];
  const byId = messages.value.byId;
  const ids = feed?.ids ?? [];
  const scrollRef = useRef<HTMLDivElement>(null);
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const idsRef = useRef(ids);
  idsRef.current = ids;

  const virtualizer = useMemo(
    () =>
      new Virtualizer<HTMLDivElement, HTMLElement>({
        count: ids.length,
        getScrollElement: () => scrollRef.current,
        estimateSize: () => 64,
        overscan: 6,
        scrollToFn: elementScroll,
        observeElementRect,
        observeElementOffset,
        measureElement,
        getItemKey: (i) => idsRef.current[i] ?? i,
        // A chat: the view stays at the newest message as messages arrive.
        anchorTo: 'end',
        followOnAppend: true,
        onChange: () => rerender(0),
      }),
    [feedKey],
  );
  virtualizer.setOptions({ ...virtualizer.options, count: ids.length });
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());

  // Opening a feed starts at its newest message.
  const loadedOnce = useRef(false);
  useEffect(() => {
    loadedOnce.current = false;
  }, [feedKey]);
  useEffect(() => {
    if (ids.length && !loadedOnce.current) {
      loadedOnce.current = true;
      virtualizer.scrollToIndex(ids.length - 1, { align: 'end' });
    }
  }, [ids.length, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const range = virtualizer.range;

  // Loads more when the first or last loaded message comes into view.
  useEffect(() => {
    if (!feed || !items.length) return;
    if (items[0].index <= 2 && !feed.foundOldest) void loadMore(feed.narrow, 'older');
    if (items[items.length - 1].index >= ids.length - 3 && !feed.foundNewest) void loadMore(feed.narrow, 'newer');
  });

  // What is on screen while the page is visible counts as seen.
  useEffect(() => {
    if (!range || document.visibilityState !== 'visible') return;
    for (let i = range.startIndex; i <= range.endIndex; i++) {
      const id = ids[i];
      if (id !== undefined && st.unread[id]) markSeen(id);
    }
  });

  // The message chosen with j/k is scrolled to and focused.
  const selected = selectedId.value;
  useEffect(() => {
    if (selected === null) return;
    const at = ids.indexOf(selected);
    if (at < 0) return;
    virtualizer.scrollToIndex(at, { align: 'auto' });
    requestAnimationFrame(() => {
      // Not when a key after j/k (r, c) already moved the focus into a field.
      const active = document.activeElement;
      if (active && (active.tagName === 'TEXTAREA' || active.tagName === 'INPUT')) return;
      document.getElementById(`message-${selected}`)?.focus();
    });
  }, [selected]);

  if (!feed) return <p class="loading" role="status">Loading messages…</p>;
  return (
    <div ref={scrollRef} class="feed" role="log" aria-label="Messages" aria-live="polite" tabIndex={0}>
      {feed.foundOldest && !ids.length && <p class="empty">No messages here yet.</p>}
      <div class="feed-inner" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {items.map((item) => {
          const m = byId[ids[item.index]];
          if (!m) return null;
          const prev = item.index > 0 ? byId[ids[item.index - 1]] : undefined;
          const newDay = !prev || dayOf(prev.timestamp) !== dayOf(m.timestamp);
          const newConversation = newDay || !prev || conversationOf(prev) !== conversationOf(m);
          const newSender = newConversation || prev!.sender_id !== m.sender_id || m.timestamp - prev!.timestamp > 600;
          return (
            <div key={item.key} data-index={item.index} ref={(el) => {
                if (el) virtualizer.measureElement(el);
              }} class="row" style={{ transform: `translateY(${item.start}px)` }}>
              {newDay && <div class="date">{dayOf(m.timestamp)}</div>}
              {newConversation && <ConversationHeader m={m} />}
              <MessageView m={m} showSender={newSender} selected={selected === m.id} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function ConversationHeader({ m }: { m: Message }) {
  const st = state.value!;
  if (m.type === 'stream') {
    const name = st.channels[m.stream_id!]?.name ?? 'unknown channel';
    return (
      <div class="conversation">
        <a href={narrowToHash({ kind: 'stream', stream_id: m.stream_id! })}>#{name}</a>
        {' › '}
        <a href={narrowToHash({ kind: 'topic', stream_id: m.stream_id!, topic: m.subject })}>{m.subject || 'general chat'}</a>
      </div>
    );
  }
  const others = m.dm_users.filter((id) => id !== st.me);
  return (
    <div class="conversation">
      <a href={narrowToHash({ kind: 'dm', users: others.length ? others : [st.me] })}>You and {others.map((id) => st.users[id]?.full_name ?? 'Unknown user').join(', ') || 'yourself'}</a>
    </div>
  );
}

/** "Ann is typing…" for the open conversation; notices expire if no stop arrives. */
function TypingNotice() {
  const st = state.value!;
  const n = currentNarrow.value;
  const [, tick] = useReducer((x: number) => x + 1, 0);
  useEffect(() => {
    const t = setInterval(() => tick(0), 2000);
    return () => clearInterval(t);
  }, []);
  const key = n.kind === 'topic' ? `stream:${n.stream_id}:${n.topic.toLowerCase()}` : n.kind === 'dm' ? `dm:${dmKey(n.users.filter((id) => id !== st.me))}` : null;
  const now = Date.now();
  const entries = key ? Object.entries(typing.value[key] ?? {}) : n.kind === 'stream' ? Object.entries(typing.value).filter(([k]) => k.startsWith(`stream:${n.stream_id}:`)).flatMap(([, v]) => Object.entries(v)) : [];
  const who = entries.filter(([, until]) => until > now).map(([id]) => st.users[Number(id)]?.full_name ?? 'Someone');
  return (
    <p class="typing" aria-live="polite">
      {who.length ? `${[...new Set(who)].join(', ')} ${who.length > 1 ? 'are' : 'is'} typing…` : ''}
    </p>
  );
}
