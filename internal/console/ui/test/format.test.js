import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytes, encodeKey, baseName, parentPrefix, crumbs, validBucketName } from '../dist/js/format.js';

test('encodeKey escapes as SigV4 does and keeps slashes', () => {
  assert.equal(encodeKey("a b/c+d/é!*()'~"), 'a%20b/c%2Bd/%C3%A9%21%2A%28%29%27~');
  assert.equal(encodeKey('dir/'), 'dir/');
  assert.equal(encodeKey('100%'), '100%25');
});

test('names, parents and crumbs', () => {
  assert.equal(baseName('a/b/c.txt'), 'c.txt');
  assert.equal(baseName('a/b/'), 'b/');
  assert.equal(parentPrefix('a/b/c'), 'a/b/');
  assert.equal(parentPrefix('a/b/'), 'a/');
  assert.equal(parentPrefix('c'), '');
  assert.deepEqual(crumbs('a/b/'), [
    { name: 'a', prefix: 'a/' },
    { name: 'b', prefix: 'a/b/' },
  ]);
  assert.deepEqual(crumbs(''), []);
});

test('bytes and bucket names', () => {
  assert.equal(bytes(0), '0 B');
  assert.equal(bytes(1536), '1.5 KiB');
  assert.equal(bytes(50 * 1024 * 1024), '50 MiB');
  assert.equal(validBucketName('my-bucket.1'), '');
  for (const bad of ['ab', 'Upper', '-x-', 'a..b', '192.168.0.1', 'a'.repeat(64)]) assert.notEqual(validBucketName(bad), '', bad);
});
