// Pure parsing of the S3 and IAM XML the console reads, and building of the
// XML bodies it sends. Every function takes text and uses the DOMParser of
// the global scope (the browser's; @xmldom/xmldom's in the unit tests), and
// only DOM Level 2 Core calls, so both agree.

/** parseXML returns the document of text; throws on XML that is not well formed. */
export function parseXML(text) {
  const doc = new globalThis.DOMParser().parseFromString(text, 'application/xml');
  const err = doc.getElementsByTagName('parsererror');
  if (err.length > 0 || !doc.documentElement) throw new Error('malformed XML');
  return doc;
}

/** kids returns the element children of el named name (any namespace). */
export function kids(el, name) {
  const out = [];
  if (!el) return out;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n.localName || n.nodeName) === name) out.push(n);
  }
  return out;
}

/** kid returns the first element child of el named name, or null. */
export function kid(el, name) {
  return kids(el, name)[0] || null;
}

/** text returns the text of el's first child named name, or def. */
export function text(el, name, def = '') {
  const k = kid(el, name);
  return k ? k.textContent : def;
}

/** num returns the number in el's first child named name; 0 when it or el is missing. */
export function num(el, name) {
  return Number(text(el, name, '0'));
}

/** path follows element names from el; null when one is missing. */
export function path(el, ...names) {
  for (const n of names) {
    el = kid(el, n);
    if (!el) return null;
  }
  return el;
}

/**
 * parseError reads an S3 error body (<Error><Code/><Message/></Error>) or an
 * IAM one (<ErrorResponse><Error>…); null when text is not one.
 */
export function parseError(textBody) {
  let doc;
  try {
    doc = parseXML(textBody);
  } catch {
    return null;
  }
  let el = doc.documentElement;
  if ((el.localName || el.nodeName) === 'ErrorResponse') el = kid(el, 'Error');
  if (!el || (el.localName || el.nodeName) !== 'Error') return null;
  return {
    code: text(el, 'Code'),
    message: text(el, 'Message'),
    requestId: text(el, 'RequestId') || text(doc.documentElement, 'RequestId'),
  };
}

/** parseListBuckets reads ListAllMyBucketsResult: {buckets: [{name, created}], next}. */
export function parseListBuckets(textBody) {
  const root = parseXML(textBody).documentElement;
  return {
    buckets: kids(kid(root, 'Buckets'), 'Bucket').map((b) => ({
      name: text(b, 'Name'),
      created: text(b, 'CreationDate'),
    })),
    next: text(root, 'ContinuationToken'),
  };
}

/** decoder undoes EncodingType=url when the answer says it was applied. */
function decoder(root) {
  if (text(root, 'EncodingType') !== 'url') return (s) => s;
  return (s) => decodeURIComponent(s.replace(/\+/g, '%20'));
}

/**
 * parseListObjectsV2 reads ListBucketResult: the page's objects, common
 * prefixes and the token of the next page ('' on the last).
 */
export function parseListObjectsV2(textBody) {
  const root = parseXML(textBody).documentElement;
  const dec = decoder(root);
  const objects = kids(root, 'Contents').map((c) => ({
    key: dec(text(c, 'Key')),
    size: num(c, 'Size'),
    lastModified: text(c, 'LastModified'),
    etag: text(c, 'ETag'),
    storageClass: text(c, 'StorageClass'),
  }));
  const prefixes = kids(root, 'CommonPrefixes').map((p) => dec(text(p, 'Prefix')));
  const truncated = text(root, 'IsTruncated') === 'true';
  return {
    objects,
    prefixes,
    truncated,
    next: truncated ? text(root, 'NextContinuationToken') : '',
    keyCount: num(root, 'KeyCount'),
  };
}

/** parseListVersions reads ListVersionsResult: versions and delete markers, in order. */
export function parseListVersions(textBody) {
  const root = parseXML(textBody).documentElement;
  const dec = decoder(root);
  const out = [];
  for (let n = root.firstChild; n; n = n.nextSibling) {
    const name = n.nodeType === 1 ? n.localName || n.nodeName : '';
    if (name !== 'Version' && name !== 'DeleteMarker') continue;
    out.push({
      key: dec(text(n, 'Key')),
      versionId: text(n, 'VersionId'),
      isLatest: text(n, 'IsLatest') === 'true',
      lastModified: text(n, 'LastModified'),
      size: num(n, 'Size'),
      etag: text(n, 'ETag'),
      deleteMarker: name === 'DeleteMarker',
    });
  }
  const truncated = text(root, 'IsTruncated') === 'true';
  return {
    versions: out,
    truncated,
    nextKey: dec(text(root, 'NextKeyMarker')),
    nextVersion: text(root, 'NextVersionIdMarker'),
  };
}

/** parseTagging reads Tagging: [{key, value}]. */
export function parseTagging(textBody) {
  const root = parseXML(textBody).documentElement;
  return kids(kid(root, 'TagSet'), 'Tag').map((t) => ({ key: text(t, 'Key'), value: text(t, 'Value') }));
}

/** parseVersioning reads VersioningConfiguration: 'Enabled', 'Suspended' or ''. */
export function parseVersioning(textBody) {
  return text(parseXML(textBody).documentElement, 'Status');
}

/** parseObjectLock reads ObjectLockConfiguration: {enabled, mode, days, years}. */
export function parseObjectLock(textBody) {
  const root = parseXML(textBody).documentElement;
  const dr = path(root, 'Rule', 'DefaultRetention');
  return {
    enabled: text(root, 'ObjectLockEnabled') === 'Enabled',
    mode: dr ? text(dr, 'Mode') : '',
    days: num(dr, 'Days'),
    years: num(dr, 'Years'),
  };
}

/** parseEncryption reads ServerSideEncryptionConfiguration's rule: {mode ('AES256' or 'aws:kms'), keyId, bucketKey}. */
export function parseEncryption(textBody) {
  const rule = kid(parseXML(textBody).documentElement, 'Rule');
  const def = path(rule, 'ApplyServerSideEncryptionByDefault');
  return {
    mode: def ? text(def, 'SSEAlgorithm') : '',
    keyId: def ? text(def, 'KMSMasterKeyID') : '',
    bucketKey: rule ? text(rule, 'BucketKeyEnabled') === 'true' : false,
  };
}

/** parseQuota reads BucketQuota: {quota (0 = none), used, objects}. */
export function parseQuota(textBody) {
  const root = parseXML(textBody).documentElement;
  return { quota: num(root, 'QuotaBytes'), used: num(root, 'UsedBytes'), objects: num(root, 'ObjectCount') };
}

/** parseLifecycle reads LifecycleConfiguration: a summary per rule (legacy: it has a rule Prefix, not a Filter). */
export function parseLifecycle(textBody) {
  const root = parseXML(textBody).documentElement;
  return kids(root, 'Rule').map((r) => {
    const filter = kid(r, 'Filter');
    const prefix = filter ? text(filter, 'Prefix') || text(kid(filter, 'And'), 'Prefix') : text(r, 'Prefix');
    const exp = kid(r, 'Expiration');
    const nce = kid(r, 'NoncurrentVersionExpiration');
    const abort = kid(r, 'AbortIncompleteMultipartUpload');
    return {
      id: text(r, 'ID'),
      status: text(r, 'Status'),
      prefix,
      legacy: !filter,
      expirationDays: num(exp, 'Days'),
      noncurrentDays: num(nce, 'NoncurrentDays'),
      abortDays: num(abort, 'DaysAfterInitiation'),
    };
  });
}

/**
 * parseNotification reads NotificationConfiguration: its queue
 * configurations as [{id, arn, events, prefix, suffix}] (filter rule names
 * in any case, as S3 accepts them).
 */
export function parseNotification(textBody) {
  const root = parseXML(textBody).documentElement;
  return kids(root, 'QueueConfiguration').map((q) => {
    const rules = {};
    for (const r of kids(path(q, 'Filter', 'S3Key'), 'FilterRule')) rules[text(r, 'Name').toLowerCase()] = text(r, 'Value');
    return {
      id: text(q, 'Id'),
      arn: text(q, 'Queue'),
      events: kids(q, 'Event').map((e) => e.textContent),
      prefix: rules.prefix || '',
      suffix: rules.suffix || '',
    };
  });
}

/** rates reads a Capacity or a Reservation's bytes per second (read, write) and requests per second. */
function rates(el) {
  return { read: num(el, 'ReadBytesPerSecond'), write: num(el, 'WriteBytesPerSecond'), requests: num(el, 'RequestsPerSecond') };
}

/** parseReservations reads ListReservationsResult: {capacity, reservations}. */
export function parseReservations(textBody) {
  const root = parseXML(textBody).documentElement;
  const cap = kid(root, 'Capacity');
  return {
    capacity: rates(cap),
    reservations: kids(root, 'Reservation').map((r) => ({
      id: text(r, 'Id'),
      ...rates(r),
      start: text(r, 'Start'),
      end: text(r, 'End'),
      principal: text(r, 'Principal'),
      state: text(r, 'State'),
    })),
  };
}

/** parseInitiateMultipart reads InitiateMultipartUploadResult's UploadId. */
export function parseUploadId(textBody) {
  return text(parseXML(textBody).documentElement, 'UploadId');
}

/**
 * parseIAMList reads an IAM List* answer: the <member> elements under
 * Result/<listName>, each turned into an object of its element children's
 * text. IsTruncated and Marker come back too.
 */
export function parseIAMList(textBody, listName) {
  const root = parseXML(textBody).documentElement;
  const result = firstResult(root);
  const list = kid(result, listName);
  return {
    items: kids(list, 'member').map(flat),
    truncated: text(result, 'IsTruncated') === 'true',
    marker: text(result, 'Marker'),
  };
}

/** parseIAMResult returns the flat fields of an IAM answer's Result/<name> element. */
export function parseIAMResult(textBody, name) {
  const root = parseXML(textBody).documentElement;
  return flat(kid(firstResult(root), name));
}

function firstResult(root) {
  for (let n = root.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && /Result$/.test(n.localName || n.nodeName)) return n;
  }
  return null;
}

function flat(el) {
  const o = {};
  if (!el) return o;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) o[n.localName || n.nodeName] = n.textContent;
  }
  return o;
}

/** esc escapes text for an XML element's content. */
export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);
}

const NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** versioningXML builds a VersioningConfiguration body. */
export function versioningXML(status) {
  return `<VersioningConfiguration xmlns="${NS}"><Status>${esc(status)}</Status></VersioningConfiguration>`;
}

/** taggingXML builds a Tagging body of [{key, value}]. */
export function taggingXML(tags) {
  const t = tags.map((x) => `<Tag><Key>${esc(x.key)}</Key><Value>${esc(x.value)}</Value></Tag>`).join('');
  return `<Tagging xmlns="${NS}"><TagSet>${t}</TagSet></Tagging>`;
}

/** objectLockXML builds an ObjectLockConfiguration body; mode '' leaves no default retention. */
export function objectLockXML({ mode, days, years }) {
  let rule = '';
  if (mode) {
    const period = years > 0 ? `<Years>${years}</Years>` : `<Days>${days}</Days>`;
    rule = `<Rule><DefaultRetention><Mode>${esc(mode)}</Mode>${period}</DefaultRetention></Rule>`;
  }
  return `<ObjectLockConfiguration xmlns="${NS}"><ObjectLockEnabled>Enabled</ObjectLockEnabled>${rule}</ObjectLockConfiguration>`;
}

/** legalHoldXML builds an object's LegalHold body (on: ON, else OFF). */
export function legalHoldXML(on) {
  return `<LegalHold xmlns="${NS}"><Status>${on ? 'ON' : 'OFF'}</Status></LegalHold>`;
}

/** retentionXML builds an object's Retention body (until: an ISO 8601 time). */
export function retentionXML(mode, until) {
  return `<Retention xmlns="${NS}"><Mode>${esc(mode)}</Mode><RetainUntilDate>${esc(until)}</RetainUntilDate></Retention>`;
}

/** encryptionXML builds a ServerSideEncryptionConfiguration body: mode 'AES256' or 'aws:kms' (keyId '': the default key). */
export function encryptionXML({ mode, keyId }) {
  const key = mode === 'aws:kms' && keyId ? `<KMSMasterKeyID>${esc(keyId)}</KMSMasterKeyID>` : '';
  return (
    `<ServerSideEncryptionConfiguration xmlns="${NS}"><Rule><ApplyServerSideEncryptionByDefault>` +
    `<SSEAlgorithm>${esc(mode)}</SSEAlgorithm>${key}</ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`
  );
}

/** quotaXML builds a BucketQuota body. */
export function quotaXML(bytes) {
  return `<BucketQuota xmlns="${NS}"><QuotaBytes>${Math.floor(bytes)}</QuotaBytes></BucketQuota>`;
}

/** reservationXML builds a Reservation body (rates in bytes/s, times RFC 3339). */
export function reservationXML({ read, write, requests, start, end, principal }) {
  return (
    `<Reservation xmlns="${NS}"><ReadBytesPerSecond>${Math.floor(read)}</ReadBytesPerSecond>` +
    `<WriteBytesPerSecond>${Math.floor(write)}</WriteBytesPerSecond>` +
    (requests ? `<RequestsPerSecond>${Math.floor(requests)}</RequestsPerSecond>` : '') +
    `<Start>${esc(start)}</Start><End>${esc(end)}</End>` +
    (principal ? `<Principal>${esc(principal)}</Principal>` : '') +
    `</Reservation>`
  );
}

/** notificationXML builds a NotificationConfiguration of queue configurations (as parseNotification reads them); none removes it. */
export function notificationXML(configs) {
  const rule = (name, v) => (v ? `<FilterRule><Name>${name}</Name><Value>${esc(v)}</Value></FilterRule>` : '');
  const q = configs
    .map((c) => {
      const filter = c.prefix || c.suffix ? `<Filter><S3Key>${rule('Prefix', c.prefix)}${rule('Suffix', c.suffix)}</S3Key></Filter>` : '';
      const events = c.events.map((e) => `<Event>${esc(e)}</Event>`).join('');
      return `<QueueConfiguration>${c.id ? `<Id>${esc(c.id)}</Id>` : ''}<Queue>${esc(c.arn)}</Queue>${events}${filter}</QueueConfiguration>`;
    })
    .join('');
  return `<NotificationConfiguration xmlns="${NS}">${q}</NotificationConfiguration>`;
}

/** completeMultipartXML builds CompleteMultipartUpload from [{part, etag}] in part order. */
export function completeMultipartXML(parts) {
  const p = [...parts]
    .sort((a, b) => a.part - b.part)
    .map((x) => `<Part><PartNumber>${x.part}</PartNumber><ETag>${esc(x.etag)}</ETag></Part>`)
    .join('');
  return `<CompleteMultipartUpload xmlns="${NS}">${p}</CompleteMultipartUpload>`;
}

/**
 * parseReplication reads a ReplicationConfiguration: its rules as [{id, priority (null in a V1 rule), status, v2,
 * filter (what the rule selects, as text), prefix, destination, deleteMarkers ('Enabled', 'Disabled'; V1: 'Always')}].
 */
export function parseReplication(textBody) {
  return kids(parseXML(textBody).documentElement, 'Rule').map((r) => {
    const f = kid(r, 'Filter');
    const and = kid(f, 'And');
    const tags = (el) => kids(el, 'Tag').map((t) => `${text(t, 'Key')}=${text(t, 'Value')}`);
    const prefix = f ? text(and || f, 'Prefix') : text(r, 'Prefix');
    const parts = [prefix && `prefix ${prefix}`, ...tags(and || f).map((t) => `tag ${t}`)].filter(Boolean);
    return {
      id: text(r, 'ID'),
      priority: kid(r, 'Priority') ? num(r, 'Priority') : null,
      status: text(r, 'Status'),
      v2: !!f,
      filter: parts.join(' and ') || 'every object',
      prefix,
      destination: text(kid(r, 'Destination'), 'Bucket'),
      deleteMarkers: f ? text(kid(r, 'DeleteMarkerReplication'), 'Status', 'Disabled') : 'Always',
    };
  });
}

/**
 * configEdited returns the configuration xml ('' for an empty <root>) with edit applied to its rules: edit(rules, doc)
 * changes, removes or appends <Rule> elements of doc, so that whatever the console does not show (tags, Role,
 * ExistingObjectReplication …) is sent back as it was.
 */
function configEdited(root, xml, edit) {
  const doc = parseXML(xml || `<${root} xmlns="${NS}"></${root}>`);
  edit(kids(doc.documentElement, 'Rule'), doc);
  return new globalThis.XMLSerializer().serializeToString(doc);
}

/**
 * ruleAdded appends <Rule>body</Rule> (XML its caller escaped) to the rules of the configuration xml ('' for an
 * empty <root>), keeping the rest of it as it was.
 */
export function ruleAdded(root, xml, body) {
  return configEdited(root, xml, (rules, doc) => {
    // parsed in the document's namespace, so that the rule is declared in none of its own
    const ns = doc.documentElement.namespaceURI || '';
    const el = kid(parseXML(`<${root} xmlns="${ns}"><Rule>${body}</Rule></${root}>`).documentElement, 'Rule');
    doc.documentElement.appendChild(doc.importNode(el, true));
  });
}

/** replicationEdited is configEdited of a ReplicationConfiguration. */
export function replicationEdited(xml, edit) {
  return configEdited('ReplicationConfiguration', xml, edit);
}

/** replicationStatusSet sets the Status of rule id in xml to status. */
export function replicationStatusSet(xml, id, status) {
  return replicationEdited(xml, (rules) => {
    for (const r of rules) if (text(r, 'ID') === id) kid(r, 'Status').textContent = status;
  });
}

/** replicationRuleRemoved removes rule id from xml. */
export function replicationRuleRemoved(xml, id) {
  return replicationEdited(xml, (rules) => {
    for (const r of rules) if (text(r, 'ID') === id) r.parentNode.removeChild(r);
  });
}

/**
 * replicationRuleAdded appends a rule {id, prefix, destination, deleteMarkers (bool), priority} to xml in the
 * schema its rules take: V1 (a rule Prefix; no priority, delete markers always) when they do, else V2.
 */
export function replicationRuleAdded(xml, rule) {
  const v1 = xml ? parseReplication(xml).some((r) => !r.v2) : false;
  const dest = `<Destination><Bucket>${esc(rule.destination)}</Bucket></Destination>`;
  const body = v1
    ? `<ID>${esc(rule.id)}</ID><Prefix>${esc(rule.prefix)}</Prefix><Status>Enabled</Status>${dest}`
    : `<ID>${esc(rule.id)}</ID><Priority>${Number(rule.priority)}</Priority><Filter><Prefix>${esc(rule.prefix)}</Prefix></Filter>` +
      `<Status>Enabled</Status>${dest}<DeleteMarkerReplication><Status>${rule.deleteMarkers ? 'Enabled' : 'Disabled'}</Status></DeleteMarkerReplication>`;
  return ruleAdded('ReplicationConfiguration', xml, body);
}
