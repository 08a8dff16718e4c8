// Renderer features the corpus does not exercise: mentions, groups, channel links, linkifiers, topic links, flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderContextFrom, renderMessage, topicLinks } from '../src/lib/markdown/index.js';

const ctx = renderContextFrom(
  [
    { id: 4, full_name: 'King Hamlet' },
    { id: 5, full_name: 'Othello' },
    { id: 6, full_name: 'Twin' },
    { id: 7, full_name: 'Twin' },
  ],
  {
    groups: [{ id: 20, name: 'hamletcharacters' }],
    streams: [{ id: 1, name: 'Denmark' }, { id: 2, name: 'core team.dev' }],
    linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' }],
    realmEmoji: [{ id: '9', name: 'green_tick', url: '/user_avatars/2/emoji/images/9.png' }],
    realmUrl: 'http://zulip.testserver',
  },
);
const html = (s: string) => renderMessage(s, ctx).html;

test('user mentions: by name, by id, silent, ambiguous names and unknown ids', () => {
  const r = renderMessage('hi @**King Hamlet** and @_**Othello** and @**Twin** and @**Twin|7** and @**|5**', ctx);
  assert.equal(
    r.html,
    '<p>hi <span class="user-mention" data-user-id="4">@King Hamlet</span> and <span class="user-mention silent" data-user-id="5">Othello</span> and @<strong>Twin</strong> and <span class="user-mention" data-user-id="7">@Twin</span> and <span class="user-mention" data-user-id="5">@Othello</span></p>',
  );
  assert.deepEqual(r.mentionedUserIds, [4, 5, 7]);
  assert.equal(html('a@**King Hamlet**'), '<p>a@<strong>King Hamlet</strong></p>', 'a mention starts a word');
});

test('wildcards set the channel and topic flags; mentions in quotes are silent and set nothing', () => {
  const r = renderMessage('@**all** @**topic**', ctx);
  assert.equal(r.html, '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> <span class="topic-mention">@topic</span></p>');
  assert.ok(r.streamWildcardMentioned && r.topicWildcardMentioned);
  const q = renderMessage('> @**King Hamlet** @*hamletcharacters* @**everyone**\n```quote\n@**Othello**\n```', ctx);
  assert.deepEqual([q.mentionedUserIds, q.mentionedGroupIds, q.streamWildcardMentioned], [[], [], false]);
  assert.match(q.html, /class="user-mention silent" data-user-id="4">King Hamlet</);
  assert.match(q.html, /class="user-mention silent" data-user-id="5">Othello</);
});

test('group mentions, loud and silent', () => {
  const r = renderMessage('@*hamletcharacters* @_*hamletcharacters* @*nosuchgroup*', ctx);
  assert.equal(
    r.html,
    '<p><span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span> <span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span> @<em>nosuchgroup</em></p>',
  );
  assert.deepEqual(r.mentionedGroupIds, [20]);
});

test('channel, topic and message links use the narrow URLs', () => {
  assert.equal(html('#**Denmark**'), '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a></p>');
  assert.equal(
    html('#**core team.dev>some topic**'),
    '<p><a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-core-team.2Edev/topic/some.20topic">#core team.dev &gt; some topic</a></p>',
  );
  assert.equal(html('#**Denmark>t@42**'), '<p><a class="message-link" href="/#narrow/channel/1-Denmark/topic/t/near/42">#Denmark &gt; t @ 💬</a></p>');
  assert.equal(html('#**Nowhere**'), '<p>#<strong>Nowhere</strong></p>');
});

test('linkifiers link in text, not in code or existing links, and produce topic links', () => {
  assert.equal(html('see #123, not x#124 or `#125`'), '<p>see <a href="https://trac.example.com/ticket/123">#123</a>, not x#124 or <code>#125</code></p>');
  assert.deepEqual(topicLinks('fix #7 per https://example.com/a', ctx), [
    { text: '#7', url: 'https://trac.example.com/ticket/7' },
    { text: 'https://example.com/a', url: 'https://example.com/a' },
  ]);
});

test('custom emoji, /me, time and link facts', () => {
  assert.equal(html(':green_tick:'), '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/9.png" title="green tick"></p>');
  assert.equal(renderMessage('/me waves', ctx).isMeMessage, true);
  assert.equal(renderMessage('/me waves\nagain', ctx).isMeMessage, false);
  assert.equal(html('<time:2017-06-05T22:30:00+02:00>'), '<p><time datetime="2017-06-05T20:30:00Z">2017-06-05T22:30:00+02:00</time></p>');
  const r = renderMessage('look https://example.com/cat.jpg', ctx);
  assert.ok(r.hasLink && r.hasImage);
  assert.equal(renderMessage('plain', ctx).hasLink, false);
});

test('inline image previews can be turned off, and more than the limit gives none', () => {
  const off = renderContextFrom([], { inlineImagePreview: false });
  assert.equal(renderMessage('https://example.com/a.png', off).html, '<p><a href="https://example.com/a.png">https://example.com/a.png</a></p>');
  const many = Array.from({ length: 25 }, (_, i) => `https://example.com/${i}.png`).join('\n');
  assert.doesNotMatch(html(many), /message_inline_image/);
});

test('code blocks: default language, highlighting classes, unknown languages', () => {
  const d = renderContextFrom([], { defaultCodeBlockLanguage: 'python' });
  assert.match(renderMessage('```\nx = 1\n```', d).html, /data-code-language="Python".*<span class="n">x<\/span> <span class="o">=<\/span> <span class="mi">1<\/span>/s);
  assert.equal(html('```nosuchlang\n<b>\n```'), '<div class="codehilite" data-code-language="nosuchlang"><pre><span></span><code>&lt;b&gt;\n</code></pre></div>');
});
