import './setup.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, s3url, errorFromText } from '../dist/js/api.js';

test('query: bare names for empty values, encoded pairs, skipped nulls', () => {
  assert.equal(query({ versioning: '' }), '?versioning');
  assert.equal(query({ 'list-type': '2', prefix: 'a b/&', token: null }), '?list-type=2&prefix=a%20b%2F%26');
  assert.equal(query({}), '');
  assert.equal(query(null), '');
});

test('s3url: ListBuckets, a bucket, a key encoded per segment', () => {
  assert.equal(s3url(), '/console/api/s3/');
  assert.equal(s3url('b', '', { uploads: '' }), '/console/api/s3/b?uploads');
  assert.equal(
    s3url('b', 'dir/a b+c?.txt', { partNumber: '1', uploadId: 'x/y' }),
    '/console/api/s3/b/dir/a%20b%2Bc%3F.txt?partNumber=1&uploadId=x%2Fy',
  );
});

test('errorFromText reads console JSON, S3 XML and anything else', () => {
  const j = errorFromText(401, 'application/json', '{"code":"SignatureDoesNotMatch","message":"wrong secret"}');
  assert.deepEqual([j.status, j.code, j.message], [401, 'SignatureDoesNotMatch', 'wrong secret']);
  const x = errorFromText(
    403,
    'application/xml',
    '<Error><Code>AccessDenied</Code><Message>Access Denied.</Message><RequestId>R1</RequestId></Error>',
  );
  assert.deepEqual([x.status, x.code, x.message, x.requestId], [403, 'AccessDenied', 'Access Denied.', 'R1']);
  const p = errorFromText(502, 'text/plain', 'bad gateway');
  assert.deepEqual([p.code, p.message], ['HTTP502', 'bad gateway']);
  assert.equal(errorFromText(500, '', '').message, 'The server answered 500.');
});
