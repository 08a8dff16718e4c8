// Unit tests of the rendered-content diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { htmlDiff } from './html-diff.js';

test('marks inserted and deleted words inside the new markup', () => {
  assert.equal(htmlDiff('<p>Hello world</p>', '<p>Hello brave world</p>'), '<div><p>Hello <span class="highlight_text_inserted">brave </span>world</p></div>');
  assert.equal(htmlDiff('<p>Hello!</p>', '<p>Howdy!</p>'), '<div><p><span class="highlight_text_deleted">Hello!</span><span class="highlight_text_inserted">Howdy!</span></p></div>');
});

test('keeps the new version\'s tags and drops removed ones', () => {
  assert.equal(htmlDiff('<p><strong>bold</strong></p>', '<p>bold</p>'), '<div><p>bold</p></div>');
  assert.equal(htmlDiff('<p>a</p>', '<p>a</p><p>b</p>'), '<div><p>a</p><p><span class="highlight_text_inserted">b</span></p></div>');
  assert.equal(htmlDiff('<p>same</p>', '<p>same</p>'), '<div><p>same</p></div>');
});
