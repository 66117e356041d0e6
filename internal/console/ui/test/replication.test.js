import './setup.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as x from '../dist/js/xml.js';
import { checkRule } from '../dist/js/pages/replication.js';

// As GetBucketReplication answers (internal/bucketrepl.Config's XML order).
const V2 =
  '<ReplicationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Role>arn:aws:iam::1:role/r</Role>' +
  '<Rule><ID>logs</ID><Priority>1</Priority><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status>' +
  '<Destination><Bucket>arn:jog:replication::dr:backup</Bucket></Destination><DeleteMarkerReplication><Status>Enabled</Status></DeleteMarkerReplication></Rule>' +
  '<Rule><ID>tagged</ID><Priority>2</Priority><Filter><And><Prefix>a/</Prefix><Tag><Key>k</Key><Value>v &amp; w</Value></Tag></And></Filter>' +
  '<Status>Disabled</Status><ExistingObjectReplication><Status>Enabled</Status></ExistingObjectReplication>' +
  '<Destination><Bucket>arn:aws:s3:::other</Bucket><StorageClass>STANDARD</StorageClass></Destination>' +
  '<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication></Rule>' +
  '<Rule><ID>all</ID><Priority>3</Priority><Filter></Filter><Status>Enabled</Status><Destination><Bucket>arn:aws:s3:::other</Bucket></Destination>' +
  '<DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication></Rule></ReplicationConfiguration>';

const V1 =
  '<ReplicationConfiguration><Rule><ID>old</ID><Prefix>p/</Prefix><Status>Enabled</Status>' +
  '<Destination><Bucket>arn:aws:s3:::backup</Bucket></Destination></Rule></ReplicationConfiguration>';

test('parseReplication reads V2 rules: filter, priority, destination, delete markers', () => {
  assert.deepEqual(x.parseReplication(V2), [
    {
      id: 'logs',
      priority: 1,
      status: 'Enabled',
      v2: true,
      filter: 'prefix logs/',
      prefix: 'logs/',
      destination: 'arn:jog:replication::dr:backup',
      deleteMarkers: 'Enabled',
    },
    {
      id: 'tagged',
      priority: 2,
      status: 'Disabled',
      v2: true,
      filter: 'prefix a/ and tag k=v & w',
      prefix: 'a/',
      destination: 'arn:aws:s3:::other',
      deleteMarkers: 'Disabled',
    },
    {
      id: 'all',
      priority: 3,
      status: 'Enabled',
      v2: true,
      filter: 'every object',
      prefix: '',
      destination: 'arn:aws:s3:::other',
      deleteMarkers: 'Disabled',
    },
  ]);
});

test('parseReplication reads a V1 rule: no priority, delete markers always', () => {
  const [r] = x.parseReplication(V1);
  assert.deepEqual([r.v2, r.priority, r.filter, r.deleteMarkers], [false, null, 'prefix p/', 'Always']);
});

test('editing a rule keeps what the console does not show (Role, tags, ExistingObjectReplication, StorageClass)', () => {
  const off = x.replicationStatusSet(V2, 'logs', 'Disabled');
  assert.deepEqual(
    x.parseReplication(off).map((r) => r.status),
    ['Disabled', 'Disabled', 'Enabled'],
  );
  for (const kept of [
    '<Role>arn:aws:iam::1:role/r</Role>',
    'v &amp; w',
    '<ExistingObjectReplication>',
    '<StorageClass>STANDARD</StorageClass>',
  ]) {
    assert.ok(off.includes(kept), kept);
  }
  const less = x.replicationRuleRemoved(V2, 'tagged');
  assert.deepEqual(
    x.parseReplication(less).map((r) => r.id),
    ['logs', 'all'],
  );
});

test('replicationRuleAdded adds a V2 rule, or a V1 rule beside V1 rules, escaping what the user typed', () => {
  const rule = { id: 'new<1>', prefix: 'a&b/', destination: 'arn:aws:s3:::backup', priority: 4, deleteMarkers: false };
  const added = x.parseReplication(x.replicationRuleAdded(V2, rule));
  assert.deepEqual(added[3], {
    id: 'new<1>',
    priority: 4,
    status: 'Enabled',
    v2: true,
    filter: 'prefix a&b/',
    prefix: 'a&b/',
    destination: 'arn:aws:s3:::backup',
    deleteMarkers: 'Disabled',
  });
  const fresh = x.replicationRuleAdded('', { ...rule, deleteMarkers: true });
  assert.match(fresh, /^<ReplicationConfiguration xmlns="http:\/\/s3\.amazonaws\.com\/doc\/2006-03-01\/"><Rule>/);
  assert.equal(x.parseReplication(fresh)[0].deleteMarkers, 'Enabled');
  const v1 = x.parseReplication(x.replicationRuleAdded(V1, rule));
  assert.deepEqual(
    v1.map((r) => [r.v2, r.priority, r.prefix]),
    [
      [false, null, 'p/'],
      [false, null, 'a&b/'],
    ],
  );
});

test('checkRule refuses what S3 would: a destination in neither form, a repeated ID or priority', () => {
  const rules = x.parseReplication(V2);
  const ok = { id: '', destination: 'arn:jog:replication::dr:backup', priority: 4 };
  assert.equal(checkRule(ok, rules), '');
  assert.equal(checkRule({ ...ok, destination: 'arn:aws:s3:::backup' }, rules), '');
  for (const bad of ['backup', 'arn:aws:s3:::B', 'arn:jog:replication::backup', 'arn:jog:replication::Dr:backup', 'arn:aws:s3:::ab']) {
    assert.match(checkRule({ ...ok, destination: bad }, rules), /arn:aws:s3:::BUCKET/, bad);
  }
  assert.match(checkRule({ ...ok, id: 'logs' }, rules), /exists already/);
  assert.match(checkRule({ ...ok, priority: 2 }, rules), /priority 2 already/);
  assert.match(checkRule({ ...ok, priority: -1 }, rules), /whole number/);
  assert.equal(checkRule({ ...ok, priority: 2 }, x.parseReplication(V1)), '');
});
