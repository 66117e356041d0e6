// The lifecycle rules' editor (pages/settings.js) in test/dom.js's DOM:
// nothing that deletes objects is pre-filled (issue 42, item 14).
import './setup.js';
import { fire, html } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lifecycleForm, LIFECYCLE_EXAMPLE } from '../dist/js/pages/settings.js';

test('lifecycleForm: a bucket without rules gets an empty editor, the example only as its placeholder', async () => {
  const saved = [];
  const said = [];
  const f = lifecycleForm(
    '',
    async (text) => saved.push(text),
    (t) => said.push(t),
  );
  const area = f.querySelector('textarea');
  assert.equal(area.value, '');
  assert.ok(area.getAttribute('placeholder').includes(LIFECYCLE_EXAMPLE));
  assert.ok(!html(f).includes('.value="<'), html(f));
  // One click on Save rules saves nothing.
  await fire(f, 'submit');
  assert.deepEqual(saved, []);
  assert.match(said.at(-1), /Write a lifecycle configuration first/);
});

test("lifecycleForm: the bucket's rules are the value, saved as edited once they parse", async () => {
  const saved = [];
  const said = [];
  const f = lifecycleForm(
    LIFECYCLE_EXAMPLE,
    async (text) => saved.push(text),
    (t) => said.push(t),
  );
  const area = f.querySelector('textarea');
  assert.equal(area.value, LIFECYCLE_EXAMPLE);
  area.value = '<LifecycleConfiguration';
  await fire(f, 'submit');
  assert.deepEqual(saved, []);
  area.value = LIFECYCLE_EXAMPLE;
  await fire(f, 'submit');
  assert.deepEqual(saved, [LIFECYCLE_EXAMPLE]);
  assert.equal(said.at(-1), 'Saved.');
});
