// The bucket policy section's forms (pages/policy-form.js): the statements
// they generate (public read of exactly a prefix, read-only for one user),
// merged into the policy's other statements, the user looked up before
// anything is sent, and the confirmation that shows the statement (issue
// 42, item 17).
import './setup.js';
import { fire } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { policyForms, policyWith, publicReadStatement, readOnlyStatement, userARN } from '../dist/js/pages/policy-form.js';

const tick = () => new Promise((r) => setImmediate(r));
const ALICE = 'arn:aws:iam::123456789012:user/alice';

test('publicReadStatement: anyone may GET the keys under the prefix, and nothing else', () => {
  assert.deepEqual(publicReadStatement('site', 'public/'), {
    Sid: 'PublicRead',
    Effect: 'Allow',
    Principal: '*',
    Action: 's3:GetObject',
    Resource: 'arn:aws:s3:::site/public/*',
  });
});

test('readOnlyStatement: the user may list the bucket and GET its objects', () => {
  assert.deepEqual(readOnlyStatement('data', ALICE), {
    Sid: 'ReadOnly',
    Effect: 'Allow',
    Principal: { AWS: ALICE },
    Action: ['s3:ListBucket', 's3:GetObject'],
    Resource: ['arn:aws:s3:::data', 'arn:aws:s3:::data/*'],
  });
});

test('policyWith: a first statement makes the policy', () => {
  const { text, statement } = policyWith('', publicReadStatement('b', 'p/'));
  assert.deepEqual(JSON.parse(text), { Version: '2012-10-17', Statement: [publicReadStatement('b', 'p/')] });
  assert.equal(statement.Sid, 'PublicRead');
});

test("policyWith: appended to the policy's statements (one, or a list), kept as they were, under a Sid of its own", () => {
  const deny = { Sid: 'PublicRead', Effect: 'Deny', Principal: '*', Action: 's3:DeleteObject', Resource: 'arn:aws:s3:::b/*' };
  const one = JSON.stringify({ Version: '2012-10-17', Id: 'mine', Statement: deny });
  const first = policyWith(one, publicReadStatement('b', 'p/'));
  const doc = JSON.parse(first.text);
  assert.equal(doc.Id, 'mine');
  assert.deepEqual(doc.Statement[0], deny);
  assert.equal(first.statement.Sid, 'PublicRead2');
  assert.deepEqual(doc.Statement[1], { ...publicReadStatement('b', 'p/'), Sid: 'PublicRead2' });
  const second = JSON.parse(policyWith(first.text, publicReadStatement('b', 'q/')).text);
  assert.deepEqual(
    second.Statement.map((s) => s.Sid),
    ['PublicRead', 'PublicRead2', 'PublicRead3'],
  );
});

test('policyWith: refuses a policy that is not an object, and a grant it makes already', () => {
  assert.throws(() => policyWith('[1]', publicReadStatement('b', 'p/')), /not a JSON object/);
  assert.throws(() => policyWith('{', publicReadStatement('b', 'p/')), SyntaxError);
  const once = policyWith('', readOnlyStatement('b', ALICE)).text;
  assert.throws(() => policyWith(once, readOnlyStatement('b', ALICE)), /grants this already \(statement ReadOnly\)/);
});

/** users is a getUser over IAM's users by name; names in denied answer AccessDenied. */
const users =
  (known, denied = []) =>
  async (name) => {
    if (denied.includes(name)) throw Object.assign(new Error('denied'), { code: 'AccessDenied' });
    if (!known[name]) throw Object.assign(new Error(`The user with name ${name} cannot be found.`), { code: 'NoSuchEntity' });
    return known[name];
  };

test('userARN: a user by name or ARN, that exists; an ARN that is not the user’s refused', async () => {
  const iam = users({ alice: ALICE, bob: 'arn:aws:iam::123456789012:user/team/bob' });
  assert.equal(await userARN(' alice ', iam), ALICE);
  assert.equal(await userARN(ALICE, iam), ALICE);
  assert.equal(await userARN('bob', iam), 'arn:aws:iam::123456789012:user/team/bob');
  await assert.rejects(userARN('carol', iam), /There is no user carol/);
  await assert.rejects(userARN('arn:aws:iam::123456789012:user/carol', iam), /There is no user carol/);
  await assert.rejects(
    userARN('arn:aws:iam::999999999999:user/alice', iam),
    /The ARN of alice is arn:aws:iam::123456789012:user\/alice, not/,
  );
  await assert.rejects(userARN('', iam), /Give a user/);
  await assert.rejects(userARN('arn:aws:iam::123456789012:role/alice', iam), /is not a user's ARN/);
  await assert.rejects(userARN('arn:aws:iam::1234:user/alice', iam), /is not a user's ARN/);
  await assert.rejects(userARN('*', iam), /is not a user name/);
  await assert.rejects(userARN('al ice', iam), /is not a user name/);
});

test('userARN: a principal IAM does not let look users up may name one by ARN only', async () => {
  const iam = users({}, ['alice']);
  assert.equal(await userARN(ALICE, iam), ALICE);
  await assert.rejects(userARN('alice', iam), /denied/);
});

/** form builds the policy forms of bucket b over policy text, recording what is saved and said. */
function form(text, iam = users({ alice: ALICE })) {
  const saved = [];
  const said = [];
  const el = policyForms(
    'b',
    async () => text,
    async (t) => saved.push(t),
    iam,
    (t) => said.push(t),
  );
  const part = (test) => el.querySelector(`form[data-test=${test}]`);
  const set = (test, v) => (el.querySelector(`input[data-test=${test}]`).value = v);
  return { saved, said, part, set };
}

test('the public-read form: a prefix is required and sane; the statement is shown, and sent once confirmed', async () => {
  const f = form('');
  for (const [prefix, why] of [
    ['', /Give a prefix/],
    ['public/*', /no wildcards/],
    ['/public/', /do not start with \//],
  ]) {
    f.set('policy-public-prefix', prefix);
    await fire(f.part('policy-public-form'), 'submit');
    assert.match(f.said.at(-1), why, prefix);
    assert.equal(document.body.querySelector('dialog'), null, 'refused: nothing to confirm');
  }
  f.set('policy-public-prefix', 'public');
  const submitted = fire(f.part('policy-public-form'), 'submit');
  await tick(); // the policy read
  const dlg = document.body.querySelector('dialog');
  const says = dlg.querySelector('p').textContent;
  assert.match(says, /^Anyone on the internet, without keys, may download every object of b whose key begins with “public”/);
  assert.match(says, /nothing outside the prefix becomes public/);
  assert.match(says, /end the prefix with \//, 'a prefix without / is said to match more than a folder');
  assert.deepEqual(JSON.parse(dlg.querySelector('pre').textContent), publicReadStatement('b', 'public'));
  assert.equal(dlg.querySelector('button[data-test=confirm-submit]').textContent, 'Make public');
  assert.deepEqual(f.saved, []);
  await fire(dlg.querySelector('form'), 'submit');
  await submitted;
  assert.deepEqual(JSON.parse(f.saved[0]).Statement, [publicReadStatement('b', 'public')]);
  assert.equal(f.said.at(-1), 'Statement added.');
});

test("the public-read form: S3's refusal shows in the dialog, which stays open", async () => {
  const el = policyForms(
    'b',
    async () => '',
    async () => {
      throw Object.assign(new Error('public policies are blocked'), { code: 'AccessDenied' });
    },
    users({}),
    () => {},
  );
  el.querySelector('input[data-test=policy-public-prefix]').value = 'p/';
  fire(el.querySelector('form[data-test=policy-public-form]'), 'submit');
  await tick();
  const dlg = document.body.querySelector('dialog');
  await fire(dlg.querySelector('form'), 'submit');
  assert.equal(dlg.querySelector('p[class=dialog-error]').textContent, 'AccessDenied: public policies are blocked');
  assert.equal(dlg.open, true);
  await fire(dlg.querySelector('button[class=secondary]'), 'click');
});

test('the read-only form: the user looked up before anything is shown; its statement merged into the policy', async () => {
  const before = JSON.stringify({ Version: '2012-10-17', Statement: [publicReadStatement('b', 'p/')] });
  const f = form(before);
  f.set('policy-readonly-user', 'carol');
  await fire(f.part('policy-readonly-form'), 'submit');
  assert.match(f.said.at(-1), /There is no user carol/);
  assert.equal(document.body.querySelector('dialog'), null);
  f.set('policy-readonly-user', 'alice');
  const submitted = fire(f.part('policy-readonly-form'), 'submit');
  await tick(); // the lookup and the policy read
  const dlg = document.body.querySelector('dialog');
  assert.deepEqual(JSON.parse(dlg.querySelector('pre').textContent), readOnlyStatement('b', ALICE));
  await fire(dlg.querySelector('form'), 'submit');
  await submitted;
  assert.deepEqual(JSON.parse(f.saved[0]).Statement, [publicReadStatement('b', 'p/'), readOnlyStatement('b', ALICE)]);
});

test('the policy forms add the statement to the policy there when it is confirmed, not the one first read', async () => {
  const saved = [];
  const theirs = policyWith('', readOnlyStatement('b', ALICE)).text;
  const reads = ['', theirs];
  const el = policyForms(
    'b',
    async () => reads.shift(),
    async (t) => saved.push(t),
    users({}),
    () => {},
  );
  el.querySelector('input[data-test=policy-public-prefix]').value = 'p/';
  const submitted = fire(el.querySelector('form[data-test=policy-public-form]'), 'submit');
  await tick();
  await fire(document.body.querySelector('dialog').querySelector('form'), 'submit');
  await submitted;
  assert.deepEqual(
    JSON.parse(saved[0]).Statement.map((s) => s.Sid),
    ['ReadOnly', 'PublicRead'],
  );
});
