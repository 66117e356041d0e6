// The replication section of a bucket's settings: its
// ReplicationConfiguration's rules (GET ?replication), each enabled,
// disabled or removed, and one added at a time, by PUTting the whole
// document back (S3 has no call per rule); the configuration removed with
// DELETE ?replication. A user not allowed s3:PutReplicationConfiguration
// (the server says: permissions.js) sees the rules alone.

import * as api from '../api.js';
import { h, fill, field, button, submit, form, saver, table, errText } from '../dom.js';
import { confirmPlain } from '../confirm.js';
import { parseReplication, replicationRuleAdded, replicationRuleRemoved, replicationStatusSet, versioningXML } from '../xml.js';

/** The two forms of a Destination Bucket (internal/bucketrepl): S3's, and JOG's naming a target. */
const DESTINATION = /^arn:(aws:s3:::|jog:replication::[a-z0-9][a-z0-9-]{0,62}:)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * checkRule says why S3 would refuse adding rule {id, destination, priority} beside rules (parseReplication's),
 * or '' when it would not for what the console can check; V1 rules have no priority.
 */
export function checkRule(rule, rules) {
  if (!DESTINATION.test(rule.destination))
    return 'The destination is arn:aws:s3:::BUCKET, or arn:jog:replication::TARGET:BUCKET to name a target.';
  if (rule.id.length > 255) return 'An ID is at most 255 characters.';
  if (rule.id && rules.some((r) => r.id === rule.id)) return `A rule ${rule.id} exists already.`;
  if (rules.some((r) => !r.v2)) return '';
  if (!Number.isInteger(rule.priority) || rule.priority < 0) return 'The priority is a whole number, 0 or more.';
  if (rules.some((r) => r.priority === rule.priority)) return `A rule has priority ${rule.priority} already.`;
  return '';
}

/**
 * replicationLoad is the settings section's load(box, reload, say) for bucket; app re-renders the page; perms is
 * a promise of the bucket's Permissions (permissions.js), which say whether this session may change the rules.
 */
export function replicationLoad(app, bucket, perms) {
  const q = { query: { replication: '' } };
  const put = (xml) => api.s3('PUT', bucket, '', { ...q, headers: { 'Content-Type': 'application/xml' }, body: xml });
  return async (box, reload, say) => {
    let xml = '';
    try {
      xml = await api.s3text('GET', bucket, '', q);
    } catch (e) {
      if (e.code !== 'ReplicationConfigurationNotFoundError') throw e;
    }
    const rules = xml ? parseReplication(xml) : [];
    const editable = (await perms).may('s3:PutReplicationConfiguration');
    const change = (fn, done) =>
      saver(
        async () => {
          await fn();
          await reload();
        },
        say,
        done,
      );
    const removeRule = (r) =>
      confirmPlain(
        'Remove replication rule',
        `Stop replicating by rule ${r.id} (to ${r.destination})?`,
        () =>
          // S3 refuses a configuration of no rules: the last one goes with the configuration.
          rules.length === 1 ? api.s3('DELETE', bucket, '', q) : put(replicationRuleRemoved(xml, r.id)),
        'Remove',
      ).then((ok) => ok && reload());
    const removeAll = () =>
      confirmPlain(
        'Remove replication',
        `Stop replicating ${bucket}: remove all ${rules.length} rules?`,
        () => api.s3('DELETE', bucket, '', q),
        'Remove',
      ).then((ok) => ok && reload());
    fill(
      box,
      rules.length
        ? table(
            { class: 'list compact' },
            ['ID', 'Status', 'Priority', 'Filter', 'Destination', 'Delete markers', editable ? '' : null].filter((t) => t !== null),
            rules.map((r) => {
              const other = r.status === 'Enabled' ? 'Disabled' : 'Enabled';
              return h(
                'tr',
                { 'data-test': 'repl-row', 'data-id': r.id },
                h('td', { class: 'mono' }, r.id),
                h('td', { 'data-test': 'repl-status' }, r.status),
                h('td', null, r.priority === null ? '(V1)' : String(r.priority)),
                h('td', null, r.filter),
                h('td', { class: 'mono' }, r.destination),
                h('td', null, r.deleteMarkers),
                editable &&
                  h(
                    'td',
                    null,
                    button(
                      other === 'Enabled' ? 'Enable' : 'Disable',
                      change(() => put(replicationStatusSet(xml, r.id, other))),
                      'linkish',
                      {
                        'data-test': 'repl-toggle',
                      },
                    ),
                    ' ',
                    button('Remove', () => removeRule(r), 'linkish danger-text', { 'data-test': 'repl-remove' }),
                  ),
              );
            }),
          )
        : h('p', { class: 'hint' }, 'No replication rules.'),
      // Not editable: the section says why (settings.js).
      editable && addForm(bucket, xml, rules, put, reload, say, app),
      editable && rules.length > 0 && button('Remove replication', removeAll, 'danger', { 'data-test': 'repl-remove-all' }),
    );
  };
}

/** addForm is the form adding a rule to xml (rules, parsed) and PUTting it; a bucket not versioned is offered versioning. */
function addForm(bucket, xml, rules, put, reload, say, app) {
  const input = (test, label, attrs) =>
    h('input', { 'data-test': test, 'aria-label': label, autocomplete: 'off', spellcheck: 'false', ...attrs });
  const v1 = rules.some((r) => !r.v2);
  const next = rules.reduce((n, r) => Math.max(n, (r.priority ?? -1) + 1), 0);
  const dest = input('repl-destination', 'Destination ARN', { class: 'mono', placeholder: 'arn:aws:s3:::BUCKET' });
  const prefix = input('repl-prefix', 'Prefix', { placeholder: 'every object when empty' });
  const id = input('repl-id', 'ID', { placeholder: 'generated when empty' });
  const priority = input('repl-priority', 'Priority', { type: 'number', min: '0', value: String(next) });
  const markers = h('input', { type: 'checkbox', 'data-test': 'repl-delete-markers', checked: true });
  const offer = h('div', { class: 'row', 'data-test': 'repl-offer' });
  const rule = () => ({
    id: id.value.trim(),
    prefix: prefix.value,
    destination: dest.value.trim(),
    priority: v1 ? 0 : Number(priority.value),
    deleteMarkers: markers.checked,
  });
  const send = async () => {
    fill(offer);
    const r = rule();
    const why = checkRule(r, rules);
    if (why) throw new Error(why);
    try {
      await put(replicationRuleAdded(xml, r));
    } catch (e) {
      if (e.code === 'InvalidRequest' && /versioning/i.test(e.message)) offerVersioning(e);
      throw e;
    }
    await reload();
  };
  // S3 wants versioning Enabled first: the versioning section's own action, then the rule again.
  const offerVersioning = (e) =>
    fill(
      offer,
      h('span', { class: 'hint' }, `${errText(e)} — `),
      button(
        'Enable versioning and add the rule',
        saver(
          async () => {
            await api.s3('PUT', bucket, '', { query: { versioning: '' }, body: versioningXML('Enabled') });
            await send();
            app.render();
          },
          say,
          'Added.',
        ),
        'secondary',
        { 'data-test': 'repl-enable-versioning' },
      ),
    );
  return form(
    { class: 'sub' },
    saver(send, say, 'Added.'),
    field('Destination', dest),
    h(
      'p',
      { class: 'hint' },
      h('code', null, 'arn:aws:s3:::BUCKET'),
      ' replicates to BUCKET on the one replication target that serves it; ',
      h('code', null, 'arn:jog:replication::TARGET:BUCKET'),
      ' names one of the targets the server was started with (',
      h('code', null, '--replication-target'),
      '). A refusal lists the targets.',
    ),
    h(
      'div',
      { class: 'row' },
      field('Prefix', prefix),
      field('ID (optional)', id),
      !v1 && field('Priority', priority),
      !v1 && h('label', { class: 'check' }, markers, ' Replicate delete markers'),
    ),
    v1 &&
      h('p', { class: 'hint' }, 'These rules take S3’s first schema (a rule prefix): they replicate delete markers, and have no priority.'),
    submit('Add rule', 'primary', { 'data-test': 'repl-add' }),
    offer,
  );
}
