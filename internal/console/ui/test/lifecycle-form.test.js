// The lifecycle section's form (pages/lifecycle-form.js) and the checks it
// shares with the policy's (pages/quickform.js): what it refuses before
// sending, the rule it generates, added to the bucket's rules and never in
// place of them, and the confirmation that shows it (issue 42, item 17).
import './setup.js';
import { fire, html } from './dom.js';
import { golden } from './setup.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x from '../dist/js/xml.js';
import { checkDays, checkPrefix } from '../dist/js/pages/quickform.js';
import {
  checkLifecycleRule,
  describeLifecycleRule,
  lifecycleRuleAdded,
  lifecycleRuleForm,
  lifecycleRuleID,
} from '../dist/js/pages/lifecycle-form.js';

const V2 =
  '<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ID>keep</ID><Filter><And><Prefix>a/</Prefix>' +
  '<Tag><Key>k</Key><Value>v &amp; w</Value></Tag></And></Filter><Status>Disabled</Status>' +
  '<NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>';

const tick = () => new Promise((r) => setImmediate(r));
const rule = (r) => ({ id: '', prefix: 'tmp/', expireDays: '', abortDays: '', ...r });

test('checkDays: a whole number of days, 1 or more', () => {
  for (const ok of ['1', '7', '365', '2147483647']) assert.equal(checkDays(ok), '', ok);
  for (const bad of ['0', '-1', '7.5', '1e3', 'seven', ' 7', '', '2147483648'])
    assert.match(checkDays(bad), /whole number, 1 or more/, bad);
});

test('checkPrefix: literal, no wildcards, no policy variables, no control characters, no leading / or space around it, at most 1024 bytes', () => {
  for (const ok of ['', 'tmp/', 'logs/2026-', 'a b/é/', 'x'.repeat(1024)]) assert.equal(checkPrefix(ok), '', ok);
  assert.match(checkPrefix('', true), /Give a prefix/);
  assert.match(checkPrefix('tmp/*'), /no wildcards: write tmp\/, not tmp\/\*/);
  assert.match(checkPrefix('a?b/'), /no wildcards/);
  assert.match(checkPrefix('*'), /no wildcards: write logs\//);
  assert.match(checkPrefix('home/${aws:username}/'), /variable/);
  assert.match(checkPrefix('/photos/'), /Keys do not start with \/: write photos\/, not \/photos\//);
  assert.match(checkPrefix('a\nb'), /control/);
  assert.match(checkPrefix('tmp/ '), /no space before or after it: write “tmp\/”/);
  assert.match(checkPrefix(' tmp/'), /no space before or after it: write “tmp\/”/);
  assert.match(checkPrefix('é'.repeat(513)), /at most 1024 bytes/); // 1026 bytes in 513 characters
});

test('checkLifecycleRule: an action, its days, a sane prefix, an ID of its own', () => {
  const rules = x.parseLifecycle(V2);
  assert.equal(checkLifecycleRule(rule({ expireDays: '7' }), rules), '');
  assert.equal(checkLifecycleRule(rule({ abortDays: '1', prefix: '' }), rules), '');
  assert.match(checkLifecycleRule(rule({}), rules), /Give the days/);
  assert.match(checkLifecycleRule(rule({ expireDays: '0' }), rules), /whole number/);
  assert.match(checkLifecycleRule(rule({ expireDays: '7', abortDays: '2.5' }), rules), /not “2.5”/);
  assert.match(checkLifecycleRule(rule({ expireDays: '7', prefix: 'tmp/*' }), rules), /no wildcards/);
  assert.match(checkLifecycleRule(rule({ expireDays: '7', id: 'keep' }), rules), /A rule keep exists already/);
  assert.match(checkLifecycleRule(rule({ expireDays: '7', id: 'i'.repeat(256) }), rules), /at most 255/);
});

test('lifecycleRuleID: what the rule does and where, unique among the rules', () => {
  assert.equal(lifecycleRuleID(rule({ expireDays: '7' }), []), 'expire-tmp-7d');
  assert.equal(lifecycleRuleID(rule({ abortDays: '3', prefix: '' }), []), 'abort-uploads-all-3d');
  assert.equal(lifecycleRuleID(rule({ expireDays: '7', prefix: 'a b/é/' }), []), 'expire-a-b-7d');
  const taken = [{ id: 'expire-tmp-7d' }, { id: 'expire-tmp-7d-2' }];
  assert.equal(lifecycleRuleID(rule({ expireDays: '7' }), taken), 'expire-tmp-7d-3');
});

test('lifecycleRuleAdded: a first rule makes the configuration; the rule says what was asked, escaped', () => {
  const r = rule({ id: 'r1', prefix: 'a&b<c/', expireDays: '7', abortDays: '2' });
  const xml = lifecycleRuleAdded('', [], r);
  assert.deepEqual(x.parseLifecycle(xml), [
    { id: 'r1', status: 'Enabled', prefix: 'a&b<c/', legacy: false, expirationDays: 7, noncurrentDays: 0, abortDays: 2 },
  ]);
  assert.ok(xml.startsWith('<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ID>r1</ID>'), xml);
  const only = x.parseLifecycle(lifecycleRuleAdded('', [], rule({ id: 'r2', abortDays: '1' })))[0];
  assert.deepEqual([only.expirationDays, only.abortDays], [0, 1], 'no Expiration unless asked for');
});

test('lifecycleRuleAdded: added after the rules there, which are sent back whole; legacy rules get a legacy rule', () => {
  const added = lifecycleRuleAdded(V2, x.parseLifecycle(V2), rule({ id: 'new', expireDays: '30' }));
  assert.deepEqual(
    x.parseLifecycle(added).map((r) => [r.id, r.prefix, r.legacy, r.expirationDays]),
    [
      ['keep', 'a/', false, 0],
      ['new', 'tmp/', false, 30],
    ],
  );
  for (const kept of [
    '<Tag><Key>k</Key><Value>v &amp; w</Value></Tag>',
    '<NewerNoncurrentVersions>2</NewerNoncurrentVersions>',
    '<Status>Disabled</Status>',
  ]) {
    assert.ok(added.includes(kept), kept);
  }
  assert.ok(!added.includes('xmlns=""'), added);

  const mixed = golden('s3', 'lifecycle-configuration.xml'); // a legacy rule first, as JOG answers it
  const rules = x.parseLifecycle(mixed);
  const out = x.parseXML(lifecycleRuleAdded(mixed, rules, rule({ id: 'new', expireDays: '1' }))).documentElement;
  const all = x.kids(out, 'Rule');
  assert.equal(all.length, rules.length + 1);
  const last = all.at(-1);
  assert.equal(x.text(last, 'Prefix'), 'tmp/');
  assert.equal(x.kid(last, 'Filter'), null, 'the legacy schema of the rules there');
});

test('describeLifecycleRule: says what is deleted, and when it is every object', () => {
  assert.match(describeLifecycleRule(rule({ expireDays: '7' })), /^Objects whose keys begin with “tmp\/” are deleted 7 days after/);
  assert.match(describeLifecycleRule(rule({ expireDays: '7', prefix: '' })), /every one of them/);
  assert.match(
    describeLifecycleRule(rule({ abortDays: '2' })),
    /^Multipart uploads to keys beginning with “tmp\/” still unfinished 2 days/,
  );
});

test('lifecycleRuleForm: refuses before sending; shows the rule; adds it to the rules once confirmed', async () => {
  const saved = [];
  const said = [];
  const f = lifecycleRuleForm(
    async () => V2,
    async (t) => saved.push(t),
    (t) => said.push(t),
  );
  const set = (test, v) => (f.querySelector(`input[data-test=${test}]`).value = v);
  set('lifecycle-prefix', 'tmp/*');
  set('lifecycle-expire-days', '7');
  await fire(f, 'submit');
  assert.match(said.at(-1), /no wildcards/);
  assert.equal(document.body.querySelector('dialog'), null, 'refused: nothing to confirm');

  set('lifecycle-prefix', 'tmp/');
  const submitted = fire(f, 'submit');
  await tick(); // the configuration read
  const dlg = document.body.querySelector('dialog');
  assert.match(dlg.querySelector('p').textContent, /^Objects whose keys begin with “tmp\/” are deleted 7 days/);
  assert.equal(
    dlg.querySelector('pre').textContent,
    '<Rule><ID>expire-tmp-7d</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>7</Days></Expiration></Rule>',
  );
  assert.equal(
    html(dlg.querySelector('button[data-test=confirm-submit]')),
    '<button type="submit" class="danger" data-test="confirm-submit">Add rule</button>',
  );
  assert.deepEqual(saved, [], 'nothing saved before the confirmation');
  await fire(dlg.querySelector('form'), 'submit');
  await submitted;
  assert.equal(saved.length, 1);
  assert.deepEqual(
    x.parseLifecycle(saved[0]).map((r) => r.id),
    ['keep', 'expire-tmp-7d'],
  );
  assert.equal(said.at(-1), 'Rule added.');

  // Cancelled: nothing saved.
  const again = fire(f, 'submit');
  await tick();
  await fire(document.body.querySelector('dialog').querySelector('button[class=secondary]'), 'click');
  await again;
  assert.equal(saved.length, 1);
  assert.equal(said.at(-1), 'Nothing was added.');
});

test('lifecycleRuleForm: the rule is added to the configuration there when it is confirmed, checked again beside it', async () => {
  const saved = [];
  const said = [];
  // Another session adds a rule, then one of the ID this one generates, while the confirmation is open.
  const later = lifecycleRuleAdded(V2, x.parseLifecycle(V2), rule({ id: 'theirs', abortDays: '1' }));
  const clash = lifecycleRuleAdded(later, x.parseLifecycle(later), rule({ id: 'expire-tmp-7d', expireDays: '9' }));
  const reads = [V2, later];
  const f = lifecycleRuleForm(
    async () => reads.shift(),
    async (t) => saved.push(t),
    (t) => said.push(t),
  );
  f.querySelector('input[data-test=lifecycle-prefix]').value = 'tmp/';
  f.querySelector('input[data-test=lifecycle-expire-days]').value = '7';
  let submitted = fire(f, 'submit');
  await tick();
  let dlg = document.body.querySelector('dialog');
  await fire(dlg.querySelector('form'), 'submit');
  await submitted;
  assert.deepEqual(
    x.parseLifecycle(saved[0]).map((r) => r.id),
    ['keep', 'theirs', 'expire-tmp-7d'],
  );

  reads.push(V2, clash);
  submitted = fire(f, 'submit');
  await tick();
  dlg = document.body.querySelector('dialog');
  await fire(dlg.querySelector('form'), 'submit');
  assert.match(dlg.querySelector('p[class=dialog-error]').textContent, /A rule expire-tmp-7d exists already/);
  assert.equal(saved.length, 1);
  await fire(dlg.querySelector('button[class=secondary]'), 'click');
  await submitted;
});
