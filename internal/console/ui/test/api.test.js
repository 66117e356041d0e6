import './setup.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { query, s3url, errorFromText, signIn, getSession, csrfHeaders, APIError } from '../dist/js/api.js';

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

test('signIn and getSession keep the session CSRF token for later calls; 401 is signed out, other refusals throw', async (t) => {
  const answers = [];
  t.mock.method(globalThis, 'fetch', async (url, init = {}) => {
    const [status, body, type] = answers.shift();
    return new Response(body, { status, headers: { 'Content-Type': type } });
  });
  const session = '{"principal":"root","accessKey":"AK","csrf":"c1"}';
  answers.push([200, session, 'application/json']);
  assert.equal((await signIn('AK', 'secret')).principal, 'root');
  assert.deepEqual(csrfHeaders(), { 'X-Jog-Csrf': 'c1' });
  answers.push([200, session.replace('c1', 'c2'), 'application/json']);
  assert.equal((await getSession()).csrf, 'c2');
  assert.deepEqual(csrfHeaders(), { 'X-Jog-Csrf': 'c2' });
  answers.push([401, '', 'text/plain']);
  assert.equal(await getSession(), null);
  answers.push([401, '{"code":"SignatureDoesNotMatch","message":"wrong secret"}', 'application/json']);
  await assert.rejects(signIn('AK', 'wrong'), (e) => e instanceof APIError && e.code === 'SignatureDoesNotMatch');
  answers.push([500, '<Error><Code>InternalError</Code><Message>m</Message></Error>', 'application/xml']);
  await assert.rejects(getSession(), (e) => e.status === 500 && e.code === 'InternalError');
});
