// A bucket's default encryption (pages/settings.js, xml.js) and an object's
// (format.js), in test/dom.js's DOM.
import './setup.js';
import { fire } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encryptionForm } from '../dist/js/pages/settings.js';
import { parseEncryption, encryptionXML } from '../dist/js/xml.js';
import { objectEncryption } from '../dist/js/format.js';

test('encryptionXML and parseEncryption: SSE-S3, SSE-KMS with and without a key, the bucket key', () => {
  for (const cfg of [
    { mode: 'AES256', keyId: '', bucketKey: false },
    { mode: 'aws:kms', keyId: 'k<1>', bucketKey: false },
    { mode: 'aws:kms', keyId: '', bucketKey: false },
  ]) {
    assert.deepEqual(parseEncryption(encryptionXML(cfg)), cfg);
  }
  // SSE-S3 carries no key even when one was typed before the mode changed.
  assert.ok(!encryptionXML({ mode: 'AES256', keyId: 'k1' }).includes('KMSMasterKeyID'));
  const withBucketKey =
    '<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm>' +
    '</ApplyServerSideEncryptionByDefault><BucketKeyEnabled>true</BucketKeyEnabled></Rule></ServerSideEncryptionConfiguration>';
  assert.deepEqual(parseEncryption(withBucketKey), { mode: 'aws:kms', keyId: '', bucketKey: true });
});

test('objectEncryption: the mode and KMS key from HEAD headers', () => {
  const hd = (o) => new Headers(o);
  assert.deepEqual(objectEncryption(hd({})), { mode: 'None', keyId: '' });
  assert.deepEqual(objectEncryption(hd({ 'x-amz-server-side-encryption': 'AES256' })), { mode: 'SSE-S3 (AES256)', keyId: '' });
  assert.deepEqual(
    objectEncryption(hd({ 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'k1' })),
    { mode: 'SSE-KMS', keyId: 'k1' },
  );
  assert.deepEqual(objectEncryption(hd({ 'x-amz-server-side-encryption-customer-algorithm': 'AES256' })), {
    mode: 'SSE-C (customer key)',
    keyId: '',
  });
});

test('encryptionForm: shows the current default, saves SSE-KMS with its key, SSE-S3 without one', async () => {
  const saved = [];
  const f = encryptionForm(
    { mode: 'aws:kms', keyId: 'k1', bucketKey: false },
    async (cfg) => saved.push(cfg),
    () => {},
  );
  assert.equal(f.querySelector('[data-test=encryption-current]').textContent, 'SSE-KMS, key k1');
  const mode = f.querySelector('[data-test=encryption-mode]');
  const key = f.querySelector('[data-test=encryption-key]');
  assert.equal(key.value, 'k1');
  mode.value = 'aws:kms';
  await fire(mode, 'change');
  assert.equal(key.hidden, false);
  key.value = ' k2 ';
  await fire(f.querySelector('form'), 'submit');
  mode.value = 'AES256';
  await fire(mode, 'change');
  assert.equal(key.hidden, true);
  await fire(f.querySelector('form'), 'submit');
  assert.deepEqual(saved, [
    { mode: 'aws:kms', keyId: 'k2' },
    { mode: 'AES256', keyId: '' },
  ]);
  const none = encryptionForm(
    null,
    async () => {},
    () => {},
  );
  assert.match(none.querySelector('[data-test=encryption-current]').textContent, /^None/);
});
