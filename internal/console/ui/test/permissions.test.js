// What the console makes of the server's permissions answer, in test/dom.js's DOM.
import './setup.js';
import { html } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h } from '../dist/js/dom.js';
import { parsePermissions, Permissions, deny, readOnly, uploadKey } from '../dist/js/permissions.js';

// As GetBucketPermissions answers (internal/permissions.Answer's XML).
const ANSWER =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Permissions xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
  '<Principal>arn:aws:iam::000000000000:user/reader</Principal><Resource>arn:aws:s3:::photos</Resource>' +
  '<Permission><Action>s3:DeleteBucket</Action><Allowed>false</Allowed></Permission>' +
  '<Permission><Action>s3:ListBucket</Action><Allowed>true</Allowed></Permission>' +
  '<NotificationTargets>false</NotificationTargets></Permissions>';

test('parsePermissions reads the principal, the resource, each action and the notification targets', () => {
  assert.deepEqual(parsePermissions(ANSWER), {
    principal: 'arn:aws:iam::000000000000:user/reader',
    resource: 'arn:aws:s3:::photos',
    allowed: { 's3:DeleteBucket': false, 's3:ListBucket': true },
    notificationTargets: false,
  });
  assert.equal(parsePermissions(ANSWER.replace(/<NotificationTargets>.*<\/NotificationTargets>/, '')).notificationTargets, null);
});

test('Permissions: only what the server said no to is refused; without an answer everything is offered', () => {
  const p = new Permissions(parsePermissions(ANSWER));
  assert.equal(p.may('s3:DeleteBucket'), false);
  assert.equal(p.may('s3:ListBucket'), true);
  assert.equal(p.may('s3:PutObject'), true, 'not asked: S3 decides');
  assert.equal(p.notificationTargets, false);
  const none = new Permissions();
  assert.equal(none.may('s3:DeleteBucket'), true);
  assert.equal(none.notificationTargets, true);
});

test('deny disables the controls, titles them and says why', () => {
  const b = h('button', null, 'Delete bucket');
  const note = deny('s3:DeleteBucket', 'Delete bucket', b, null);
  assert.equal(b.disabled, true);
  assert.equal(b.getAttribute('title'), "Your policy doesn't allow s3:DeleteBucket.");
  assert.equal(
    html(note),
    '<p class="hint denied" data-test="not-allowed" data-action="s3:DeleteBucket">Delete bucket: Your policy doesn\'t allow s3:DeleteBucket.</p>',
  );
});

test('readOnly disables a section only when its write action is refused', () => {
  const p = new Permissions(parsePermissions(ANSWER));
  const box = () => h('div', null, h('select', null, h('option', null, 'Enabled')), h('input'), h('textarea'), h('button', null, 'Save'));
  const open = box();
  assert.equal(readOnly(p, 's3:ListBucket', open), false);
  assert.equal(open.querySelector('p'), null);
  assert.ok(['select', 'input', 'textarea', 'button'].every((t) => !open.querySelector(t).disabled));
  const shut = box();
  assert.equal(readOnly(p, 's3:DeleteBucket', shut), true);
  assert.ok(['select', 'input', 'textarea', 'button'].every((t) => shut.querySelector(t).disabled));
  assert.equal(shut.querySelector('p').textContent, "Read only: Your policy doesn't allow s3:DeleteBucket.");
});

test('uploadKey is the key under a prefix that a policy on prefix/* matches', () => {
  assert.equal(uploadKey('photos/'), 'photos/*');
  assert.equal(uploadKey(''), '*');
});
