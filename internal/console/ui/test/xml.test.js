import { golden } from './setup.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x from '../dist/js/xml.js';

test('parseListBuckets reads names, dates and the continuation token', () => {
  const r = x.parseListBuckets(golden('s3', 'list-buckets.xml'));
  assert.deepEqual(
    r.buckets.map((b) => b.name),
    ['alpha', 'beta'],
  );
  assert.equal(r.buckets[0].created, '2026-11-24T09:30:15.123Z');
  assert.equal(r.next, 'AWJldGE');
  assert.deepEqual(x.parseListBuckets(golden('s3', 'list-buckets-empty.xml')).buckets, []);
});

test('parseListObjectsV2 reads objects, prefixes and the next token, decoding EncodingType=url', () => {
  const r = x.parseListObjectsV2(golden('s3', 'list-objects-v2.xml'));
  assert.deepEqual(
    r.objects.map((o) => o.key),
    ['a b/1', 'a b/2'],
  );
  assert.equal(r.objects[0].size, 1);
  assert.equal(r.objects[0].etag, '"c4ca4238a0b923820dcc509a6f75849b"');
  assert.deepEqual(r.prefixes, ['a b/d//']);
  assert.equal(r.truncated, true);
  assert.equal(r.next, 'AWEgYi8y');
  const e = x.parseListObjectsV2(golden('s3', 'list-objects-v2-empty.xml'));
  assert.deepEqual([e.objects, e.prefixes, e.truncated, e.next], [[], [], false, '']);
});

test('the url decoding reads "+" as a space and %2B as a plus, as S3 encodes', () => {
  const body =
    '<ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>' +
    '<Contents><Key>a+b%2Bc%C3%A9</Key><Size>3</Size></Contents></ListBucketResult>';
  assert.equal(x.parseListObjectsV2(body).objects[0].key, 'a b+cé');
  const raw = '<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a+b%2B</Key></Contents></ListBucketResult>';
  assert.equal(x.parseListObjectsV2(raw).objects[0].key, 'a+b%2B');
});

test('parseListVersions keeps versions and delete markers in order', () => {
  const r = x.parseListVersions(golden('s3', 'list-versions.xml'));
  assert.deepEqual(
    r.versions.map((v) => [v.versionId, v.deleteMarker, v.isLatest]),
    [
      ['0004', true, true],
      ['0000', false, false],
    ],
  );
  assert.equal(r.versions[1].size, 20971520);
  assert.equal(r.nextKey, 'a/b&c');
});

test('parseError reads S3 and IAM errors and refuses other documents', () => {
  const e = x.parseError(golden('s3', 'error-escaped.xml'));
  assert.equal(e.code, 'InvalidArgument');
  assert.equal(e.message, 'Value "x\'y" is <not> valid & stays escaped');
  assert.equal(e.requestId, '0123456789ABCDEF');
  const iam = x.parseError(golden('iam', 'error-no-such-entity.xml'));
  assert.equal(iam.code, 'NoSuchEntity');
  assert.equal(x.parseError(golden('s3', 'tagging.xml')), null);
  assert.equal(x.parseError('not xml <'), null);
  assert.equal(x.parseError(''), null);
});

test('parseXML throws on malformed XML', () => {
  assert.throws(() => x.parseXML('<a><b></a>'));
});

test('tagging, versioning, object lock, quota, lifecycle, upload id', () => {
  assert.deepEqual(x.parseTagging(golden('s3', 'tagging.xml')), [
    { key: 'team', value: 'a b' },
    { key: 'env', value: '' },
  ]);
  assert.deepEqual(x.parseTagging(golden('s3', 'tagging-empty.xml')), []);
  assert.equal(x.parseVersioning(golden('s3', 'versioning-configuration.xml')), 'Enabled');
  assert.equal(x.parseVersioning(golden('s3', 'versioning-configuration-never.xml')), '');
  const lock = x.parseObjectLock(golden('s3', 'object-lock-configuration.xml'));
  assert.equal(lock.enabled, true);
  assert.ok(lock.mode === 'GOVERNANCE' || lock.mode === 'COMPLIANCE');
  assert.ok(lock.days > 0 || lock.years > 0);
  assert.equal(x.parseObjectLock(golden('s3', 'object-lock-configuration-no-rule.xml')).mode, '');
  assert.deepEqual(
    x.parseQuota('<BucketQuota><QuotaBytes>10</QuotaBytes><UsedBytes>3</UsedBytes><ObjectCount>2</ObjectCount></BucketQuota>'),
    { quota: 10, used: 3, objects: 2 },
  );
  assert.deepEqual(x.parseQuota('<BucketQuota><UsedBytes>3</UsedBytes></BucketQuota>'), { quota: 0, used: 3, objects: 0 });
  const rules = x.parseLifecycle(golden('s3', 'lifecycle-configuration.xml'));
  assert.deepEqual(
    rules.map((r) => [r.id, r.prefix, r.status]),
    [
      ['legacy', 'logs/', 'Enabled'],
      ['and', 'logs/', 'Disabled'],
      ['all', '', 'Enabled'],
      ['empty', '', 'Enabled'],
    ],
  );
  assert.equal(rules[0].expirationDays, 30);
  assert.equal(rules[1].noncurrentDays, 7);
  assert.equal(rules[2].abortDays, 3);
  assert.equal(x.parseUploadId(golden('s3', 'initiate-multipart-upload.xml')), '0000018f2a3b4c5d0123456789abcdef');
});

test('IAM lists: members, truncation and marker', () => {
  const r = x.parseIAMList(golden('iam', 'list-users-truncated.xml'), 'Users');
  assert.equal(r.items.length, 1);
  assert.equal(r.items[0].UserName, 'alice');
  assert.equal(r.items[0].Arn, 'arn:aws:iam::123456789012:user/alice');
  assert.equal(r.truncated, true);
  assert.equal(r.marker, 'alice');
  assert.deepEqual(x.parseIAMList(golden('iam', 'list-users-empty.xml'), 'Users').items, []);
  assert.equal(x.parseIAMResult(golden('iam', 'create-user.xml'), 'User').UserName.length > 0, true);
});

test('built bodies parse back and escape what they carry', () => {
  const tags = [
    { key: 'a&b', value: '<v>' },
    { key: 'k', value: '' },
  ];
  assert.deepEqual(x.parseTagging(x.taggingXML(tags)), tags);
  assert.equal(x.parseVersioning(x.versioningXML('Suspended')), 'Suspended');
  assert.deepEqual(x.parseObjectLock(x.objectLockXML({ mode: 'COMPLIANCE', days: 5, years: 0 })), {
    enabled: true,
    mode: 'COMPLIANCE',
    days: 5,
    years: 0,
  });
  assert.equal(x.parseObjectLock(x.objectLockXML({ mode: '' })).mode, '');
  assert.deepEqual(x.parseQuota(x.quotaXML(1073741824.7)), { quota: 1073741824, used: 0, objects: 0 });
  const done = x.completeMultipartXML([
    { part: 2, etag: '"b"' },
    { part: 1, etag: '"a"' },
  ]);
  const doc = x.parseXML(done);
  const parts = x.kids(doc.documentElement, 'Part').map((p) => [x.text(p, 'PartNumber'), x.text(p, 'ETag')]);
  assert.deepEqual(parts, [
    ['1', '"a"'],
    ['2', '"b"'],
  ]);
  const res = x.parseReservations(
    `<ListReservationsResult><Capacity><ReadBytesPerSecond>9</ReadBytesPerSecond><WriteBytesPerSecond>8</WriteBytesPerSecond></Capacity>${x.reservationXML({ read: 1, write: 2, start: 's', end: 'e' })}</ListReservationsResult>`,
  );
  assert.deepEqual(res.capacity, { read: 9, write: 8, requests: 0 });
  assert.deepEqual([res.reservations[0].read, res.reservations[0].write, res.reservations[0].start], [1, 2, 's']);
});

test('num reads a number, 0 when the element or its parent is missing; reservations and capacity', () => {
  const root = x.parseXML('<R><Days>7</Days><Empty></Empty></R>').documentElement;
  assert.equal(x.num(root, 'Days'), 7);
  assert.equal(x.num(root, 'Empty'), 0);
  assert.equal(x.num(root, 'Years'), 0);
  assert.equal(x.num(null, 'Days'), 0);
  // The shape of internal/s3api/reservations.go's ListReservationsResult.
  const res = x.parseReservations(
    '<ListReservationsResult><Bucket>b</Bucket><Capacity><ReadBytesPerSecond>100</ReadBytesPerSecond><WriteBytesPerSecond>50</WriteBytesPerSecond></Capacity>' +
      '<Reservation><Id>r1</Id><ReadBytesPerSecond>10</ReadBytesPerSecond><WriteBytesPerSecond>5</WriteBytesPerSecond><RequestsPerSecond>3</RequestsPerSecond>' +
      '<Start>2026-11-25T06:00:00Z</Start><End>2026-11-25T07:00:00Z</End><State>active</State></Reservation></ListReservationsResult>',
  );
  assert.deepEqual(res.capacity, { read: 100, write: 50, requests: 0 });
  assert.deepEqual(res.reservations, [
    {
      id: 'r1',
      read: 10,
      write: 5,
      requests: 3,
      start: '2026-11-25T06:00:00Z',
      end: '2026-11-25T07:00:00Z',
      principal: '',
      state: 'active',
    },
  ]);
  assert.deepEqual(x.parseReservations('<ListReservationsResult/>'), { capacity: { read: 0, write: 0, requests: 0 }, reservations: [] });
});

test("legalHoldXML and retentionXML build the bodies JOG's own answers have (golden files)", () => {
  const body = (name) =>
    golden('s3', name)
      .replace(/^<\?xml[^>]*>\n/, '')
      .trim();
  assert.equal(x.legalHoldXML(true), body('object-legal-hold.xml'));
  assert.equal(x.text(x.parseXML(x.legalHoldXML(false)).documentElement, 'Status'), 'OFF');
  assert.equal(x.retentionXML('COMPLIANCE', '2026-11-24T09:30:15.123Z'), body('object-retention.xml'));
  assert.equal(x.text(x.parseXML(x.retentionXML('a<b', 't')).documentElement, 'Mode'), 'a<b');
});

test("parseNotification and notificationXML: JOG's own answer (golden file), read and built back", () => {
  const body = (name) =>
    golden('s3', name)
      .replace(/^<\?xml[^>]*>\n/, '')
      .trim();
  const images = {
    id: 'images',
    arn: 'arn:jog:sqs:us-east-1:hook:webhook',
    events: ['s3:ObjectCreated:*', 's3:ObjectRemoved:Delete'],
    prefix: 'images/',
    suffix: '.jpg',
  };
  assert.deepEqual(x.parseNotification(golden('s3', 'notification.xml')), [images]);
  assert.equal(x.notificationXML([images]), body('notification.xml'));
  assert.deepEqual(x.parseNotification(golden('s3', 'notification-empty.xml')), []);
  assert.equal(x.notificationXML([]), body('notification-empty.xml'));
  // No Id, no filter, one rule of two, escaping, rule names in lower case.
  const two = [
    { id: '', arn: 'arn:jog:sqs:us-east-1:a:webhook', events: ['s3:ObjectRemoved:*'], prefix: '', suffix: '' },
    { id: 'x&y', arn: 'arn:jog:sqs:us-east-1:b:nats', events: ['s3:LifecycleExpiration:*'], prefix: '', suffix: '<.txt' },
  ];
  const built = x.notificationXML(two);
  assert.ok(!built.includes('<Id></Id>') && built.split('<Filter>').length === 2, built);
  assert.deepEqual(x.parseNotification(built), two);
  const lower =
    '<NotificationConfiguration><QueueConfiguration><Queue>q</Queue><Event>e</Event><Filter><S3Key>' +
    '<FilterRule><Name>prefix</Name><Value>p/</Value></FilterRule></S3Key></Filter></QueueConfiguration></NotificationConfiguration>';
  assert.deepEqual(x.parseNotification(lower), [{ id: '', arn: 'q', events: ['e'], prefix: 'p/', suffix: '' }]);
});
