// The shared builders of dom.js and confirm.js, in test/dom.js's DOM: the
// markup each makes (which the browser tests' data-test hooks rely on) and
// what its handlers do.
import { fire, html } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, button, submit, buttons, form, saver, toolbar, thead, emptyRow, table } from '../dist/js/dom.js';
import { deleteButton } from '../dist/js/confirm.js';

test('button: type=button, its class (secondary unless given), extra attributes, onclick', async () => {
  let clicks = 0;
  const b = button('Go', () => clicks++);
  assert.equal(html(b), '<button type="button" class="secondary" @click>Go</button>');
  await fire(b, 'click');
  assert.equal(clicks, 1);
  const d = button('×', () => {}, 'close', { 'aria-label': 'Dismiss', 'data-test': 'x', disabled: true });
  assert.equal(html(d), '<button type="button" class="close" aria-label="Dismiss" data-test="x" .disabled=true @click>×</button>');
  // attrs may replace the class in place (deleteButton's object delete does).
  assert.equal(html(button('D', null, 'a', { class: 'b' })), '<button type="button" class="b">D</button>');
});

test('submit and buttons: a dialog row of Cancel (closing with false) and a submit, by label or given', async () => {
  assert.equal(html(submit('Save')), '<button type="submit" class="primary">Save</button>');
  assert.equal(
    html(submit('Add', 'secondary', { 'data-test': 'a' })),
    '<button type="submit" class="secondary" data-test="a">Add</button>',
  );
  let closed;
  const row = buttons((v) => (closed = v), 'Create', { 'data-test': 'c' });
  assert.equal(
    html(row),
    '<div class="buttons"><button type="button" class="secondary" @click>Cancel</button><button type="submit" class="primary" data-test="c">Create</button></div>',
  );
  await fire(row.firstChild, 'click');
  assert.equal(closed, false);
  const ok = submit('Delete', 'danger');
  const own = buttons(() => {}, ok, null, 'Close');
  assert.equal(own.lastChild, ok);
  assert.equal(own.firstChild.textContent, 'Close');
});

test('form: submitting prevents the page load and runs onsubmit once', async () => {
  let runs = 0;
  const f = form({ class: 'row' }, () => runs++, h('input'), submit('Save'));
  assert.equal(html(f), '<form class="row" @submit><input></input><button type="submit" class="primary">Save</button></form>');
  const ev = await fire(f, 'submit');
  assert.equal(ev.defaultPrevented, true);
  assert.equal(runs, 1);
  assert.equal(html(form(null, () => {})), '<form @submit></form>');
});

test('saver: says done after fn, the error as Code: Message when it throws; resolves to whether it worked', async () => {
  const said = [];
  const say = (t) => said.push(t);
  assert.equal(await saver(async () => {}, say)(), true);
  assert.equal(await saver(async () => {}, say, 'Removed.')(), true);
  const refused = Object.assign(new Error('Access Denied.'), { code: 'AccessDenied' });
  assert.equal(
    await saver(async () => {
      throw refused;
    }, say)(),
    false,
  );
  assert.equal(
    await saver(() => {
      throw new Error('Choose Enabled or Suspended.');
    }, say)(),
    false,
  );
  assert.deepEqual(said, ['Saved.', 'Removed.', 'AccessDenied: Access Denied.', 'Choose Enabled or Suspended.']);
});

test('toolbar: a heading and what goes beside it', () => {
  assert.equal(
    html(toolbar('h1', 'Buckets', button('Create bucket', null, 'primary'))),
    '<div class="toolbar"><h1>Buckets</h1><button type="button" class="primary">Create bucket</button></div>',
  );
  assert.equal(html(toolbar('h2', 'Users')), '<div class="toolbar"><h2>Users</h2></div>');
});

test('thead, emptyRow and table: header titles or <th>s, rows, one empty row across the columns', () => {
  assert.equal(
    html(thead(['Name', h('th', { class: 'num' }, 'Size'), ''])),
    '<thead><tr><th>Name</th><th class="num">Size</th><th></th></tr></thead>',
  );
  assert.equal(html(emptyRow(3, 'No buckets yet.')), '<tr><td colspan="3" class="empty">No buckets yet.</td></tr>');
  assert.equal(html(emptyRow(undefined, 'None.')), '<tr><td class="empty">None.</td></tr>');

  const rows = ['a', 'b'].map((n) => h('tr', { 'data-test': 'user-row' }, h('td', null, n)));
  assert.equal(
    html(table({ class: 'list', 'data-test': 'user-list' }, ['Name', 'Created'], rows, 'No users.')),
    '<table class="list" data-test="user-list"><thead><tr><th>Name</th><th>Created</th></tr></thead>' +
      '<tbody><tr data-test="user-row"><td>a</td></tr><tr data-test="user-row"><td>b</td></tr></tbody></table>',
  );
  // No rows: the empty text spans the header's columns; without a header, one cell.
  assert.equal(
    html(table({ class: 'list' }, ['Name', 'ARN', 'Created', ''], [], 'No users.')),
    '<table class="list"><thead><tr><th>Name</th><th>ARN</th><th>Created</th><th></th></tr></thead>' +
      '<tbody><tr><td colspan="4" class="empty">No users.</td></tr></tbody></table>',
  );
  assert.equal(
    html(table({ class: 'list' }, null, [], 'No groups.')),
    '<table class="list"><tbody><tr><td class="empty">No groups.</td></tr></tbody></table>',
  );
  // No rows and no empty text: an empty body (the versions and keys tables).
  assert.equal(html(table({ class: 'list compact' }, null, [])), '<table class="list compact"><tbody></tbody></table>');
});

test('deleteButton: confirms in a dialog, runs the action, then done; Cancel runs neither', async () => {
  const calls = [];
  const del = deleteButton(
    'Delete group',
    'Delete ops?',
    async () => calls.push('action'),
    () => calls.push('done'),
  );
  assert.equal(html(del), '<button type="button" class="linkish danger-text" @click>Delete</button>');

  fire(del, 'click');
  let dlg = document.body.querySelector('dialog');
  assert.equal(dlg.getAttribute('aria-label'), 'Delete group');
  assert.equal(dlg.open, true);
  assert.equal(dlg.querySelector('p').textContent, 'Delete ops?');
  const ok = dlg.querySelector('button[data-test=confirm-submit]');
  assert.equal(html(ok), '<button type="submit" class="danger" data-test="confirm-submit">Delete</button>');
  assert.equal(document.activeElement, ok);
  await fire(dlg.querySelector('form'), 'submit');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls, ['action', 'done']);
  assert.equal(document.body.querySelector('dialog'), null, 'the dialog is gone');

  fire(del, 'click');
  dlg = document.body.querySelector('dialog');
  await fire(dlg.querySelector('button[class=secondary]'), 'click');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(calls, ['action', 'done'], 'cancelled: nothing ran');
  assert.equal(document.body.querySelector('dialog'), null);

  const own = deleteButton(
    'Delete object',
    'Delete a?',
    async () => {},
    () => {},
    { class: 'danger', 'data-test': 'object-delete' },
  );
  assert.equal(html(own), '<button type="button" class="danger" data-test="object-delete" @click>Delete</button>');
});
