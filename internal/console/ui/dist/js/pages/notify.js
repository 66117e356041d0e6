// The event notifications of a bucket's settings: its
// NotificationConfiguration's queue configurations (a server target's ARN,
// events, a prefix and suffix filter), one added or removed at a time by
// PUTting the whole document back (S3 has no call per configuration). On a
// server without targets there is nothing to add: the form gives way to how
// to add one.

import * as api from '../api.js';
import { h, fill, field, button, submit, form, saver, table } from '../dom.js';
import { confirmPlain } from '../confirm.js';
import { parseNotification, notificationXML } from '../xml.js';

/** FAMILIES are the event types JOG emits: each family's wildcard, then its finer types. */
const FAMILIES = [
  ['s3:ObjectCreated:', 'Put', 'Post', 'Copy', 'CompleteMultipartUpload'],
  ['s3:ObjectRemoved:', 'Delete', 'DeleteMarkerCreated'],
  ['s3:LifecycleExpiration:', 'Delete', 'DeleteMarkerCreated'],
];

/** NO_TARGETS says why no notification can be added on a server without targets, and how to add one. */
export const NO_TARGETS =
  'No notification can be added: this server has no notification targets. ' +
  'Start jog server with --notify-webhook ID=https://host/path or --notify-nats ID=nats://host:4222/subject; ' +
  "it prints each target's ARN (docs/NOTIFICATIONS.md).";

/** notifyLoad is the settings section's load(box, reload, say) for bucket; perms is a promise of its Permissions. */
export function notifyLoad(bucket, perms) {
  const q = { query: { notification: '' } };
  const save = (configs) =>
    api.s3('PUT', bucket, '', { ...q, headers: { 'Content-Type': 'application/xml' }, body: notificationXML(configs) });
  return async (box, reload, say) => {
    const configs = parseNotification(await api.s3text('GET', bucket, '', q));
    const targets = (await perms).notificationTargets;
    const remove = (c) =>
      confirmPlain(
        'Remove event notification',
        `Stop sending this bucket's events to ${c.arn} (configuration ${c.id})?`,
        () => save(configs.filter((x) => x !== c)),
        'Remove',
      ).then((ok) => ok && reload());
    const input = (test, label, attrs) =>
      h('input', { 'data-test': test, 'aria-label': label, autocomplete: 'off', spellcheck: 'false', ...attrs });
    const id = input('notify-id', 'Id', { placeholder: 'generated when empty' });
    const arn = input('notify-arn', 'Target ARN', { placeholder: 'arn:jog:sqs:us-east-1:ID:webhook', class: 'mono' });
    const prefix = input('notify-prefix', 'Prefix', { placeholder: 'e.g. images/' });
    const suffix = input('notify-suffix', 'Suffix', { placeholder: 'e.g. .jpg' });
    const check = (event, label) =>
      h('label', { class: 'check' }, h('input', { type: 'checkbox', value: event, 'data-test': 'notify-event' }), ` ${label}`);
    const events = h(
      'div',
      { class: 'events' },
      FAMILIES.map(([family, ...finer]) =>
        h(
          'div',
          { class: 'row' },
          check(family + '*', family + '*'),
          finer.map((f) => check(family + f, f)),
        ),
      ),
    );
    const add = saver(
      async () => {
        const chosen = [...events.querySelectorAll('input:checked')].map((e) => e.value);
        if (!arn.value.trim()) throw new Error("Give the target's ARN.");
        if (chosen.length === 0) throw new Error('Choose at least one event.');
        const c = { id: id.value.trim(), arn: arn.value.trim(), events: chosen, prefix: prefix.value, suffix: suffix.value };
        await save([...configs, c]);
        await reload();
      },
      say,
      'Added.',
    );
    fill(
      box,
      configs.length
        ? table(
            { class: 'list compact' },
            ['Id', 'Target', 'Events', 'Prefix', 'Suffix', ''],
            configs.map((c) =>
              h(
                'tr',
                { 'data-test': 'notify-row', 'data-id': c.id },
                h('td', { class: 'mono' }, c.id),
                h('td', { class: 'mono' }, c.arn),
                h('td', null, c.events.join(', ')),
                h('td', null, c.prefix),
                h('td', null, c.suffix),
                h(
                  'td',
                  null,
                  button('Remove', () => remove(c), 'linkish danger-text', { 'data-test': 'notify-remove' }),
                ),
              ),
            ),
          )
        : h('p', { class: 'hint' }, 'No event notifications.'),
      !targets && h('p', { class: 'hint', 'data-test': 'no-targets' }, NO_TARGETS),
      targets &&
        form(
          { class: 'sub' },
          add,
          field('Target ARN', arn),
          h(
            'p',
            { class: 'hint' },
            'One of the ARNs ',
            h('code', null, 'jog server'),
            ' printed at start, e.g. ',
            h('code', null, 'arn:jog:sqs:us-east-1:ID:webhook'),
          ),
          h('div', { class: 'field' }, h('span', null, 'Events'), events),
          h('div', { class: 'row' }, field('Prefix', prefix), field('Suffix', suffix), field('Id (optional)', id)),
          submit('Add notification', 'primary', { 'data-test': 'notify-add' }),
        ),
    );
  };
}
