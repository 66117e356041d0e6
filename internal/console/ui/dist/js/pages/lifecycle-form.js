// The lifecycle section's form for the common rules, beside its raw XML
// editor (settings.js's lifecycleForm): delete objects under a prefix N
// days after they are written, abort multipart uploads left unfinished N
// days. The rule is checked, shown as the XML it adds and confirmed, then
// added to the bucket's rules (the whole configuration PUT back, as S3 has
// no call per rule), never in place of them.

import { h, field, submit, form, saver } from '../dom.js';
import { confirmShowing } from '../confirm.js';
import { esc, parseLifecycle, ruleAdded } from '../xml.js';
import { checkDays, checkPrefix, textInput } from './quickform.js';

const ROOT = 'LifecycleConfiguration';

/**
 * checkLifecycleRule says why S3 would refuse adding rule {id, prefix, expireDays, abortDays} (days as typed, ''
 * for none) beside rules (parseLifecycle's), or why the console will not send it; '' when neither.
 */
export function checkLifecycleRule(rule, rules) {
  if (!rule.expireDays && !rule.abortDays) return 'Give the days after which objects are deleted, or uploads aborted, or both.';
  for (const d of [rule.expireDays, rule.abortDays]) if (d && checkDays(d)) return checkDays(d);
  if (checkPrefix(rule.prefix)) return checkPrefix(rule.prefix);
  if (rule.id.length > 255) return 'An ID is at most 255 characters.';
  if (rule.id && rules.some((r) => r.id === rule.id)) return `A rule ${rule.id} exists already.`;
  return '';
}

/** lifecycleRuleID is the ID of rule when the user gave none: what it does and where, unique among rules. */
export function lifecycleRuleID(rule, rules) {
  const where =
    rule.prefix
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'all';
  const base = rule.expireDays ? `expire-${where}-${rule.expireDays}d` : `abort-uploads-${where}-${rule.abortDays}d`;
  let id = base;
  for (let n = 2; rules.some((r) => r.id === id); n++) id = `${base}-${n}`;
  return id;
}

/** lifecycleRuleXML is rule's <Rule> body, in the schema of rules: a rule Prefix beside legacy rules, else a Filter. */
export function lifecycleRuleXML(rule, rules) {
  const where = rules.some((r) => r.legacy)
    ? `<Prefix>${esc(rule.prefix)}</Prefix>`
    : `<Filter><Prefix>${esc(rule.prefix)}</Prefix></Filter>`;
  return (
    `<ID>${esc(rule.id)}</ID>${where}<Status>Enabled</Status>` +
    (rule.expireDays ? `<Expiration><Days>${Number(rule.expireDays)}</Days></Expiration>` : '') +
    (rule.abortDays
      ? `<AbortIncompleteMultipartUpload><DaysAfterInitiation>${Number(rule.abortDays)}</DaysAfterInitiation></AbortIncompleteMultipartUpload>`
      : '')
  );
}

/** lifecycleRuleAdded returns xml ('' for none; rules, its parse) with rule added after its rules. */
export function lifecycleRuleAdded(xml, rules, rule) {
  return ruleAdded(ROOT, xml, lifecycleRuleXML(rule, rules));
}

/** describeLifecycleRule says in words what rule does. */
export function describeLifecycleRule(rule) {
  const under = rule.prefix ? `whose keys begin with “${rule.prefix}”` : 'in the bucket — every one of them —';
  return [
    rule.expireDays &&
      `Objects ${under} are deleted ${rule.expireDays} days after they were written (in a versioned bucket they get a delete marker; their versions stay).`,
    rule.abortDays &&
      `Multipart uploads ${rule.prefix ? `to keys beginning with “${rule.prefix}”` : 'to any key'} still unfinished ${rule.abortDays} days after they began are aborted and their parts deleted.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * lifecycleRuleForm is the form adding a common rule to the bucket's configuration: load() reads it ('' for none),
 * when the rule is checked and again when it is confirmed, so that it is added to what is there then; save(xml) PUTs
 * the new configuration; say reports in the section.
 */
export function lifecycleRuleForm(load, save, say) {
  const prefix = textInput('lifecycle-prefix', 'Prefix', { placeholder: 'tmp/ (empty: every object)' });
  const expire = textInput('lifecycle-expire-days', 'Delete objects after days', { inputmode: 'numeric', placeholder: 'days', size: 6 });
  const abort = textInput('lifecycle-abort-days', 'Abort unfinished uploads after days', {
    inputmode: 'numeric',
    placeholder: 'days',
    size: 6,
  });
  const id = textInput('lifecycle-id', 'Rule ID', { placeholder: 'generated when empty' });
  // current is the bucket's configuration and its rules, rule checked beside them.
  const current = async (rule) => {
    const xml = await load();
    const rules = xml ? parseLifecycle(xml) : [];
    const why = checkLifecycleRule(rule, rules);
    if (why) throw new Error(why);
    return { xml, rules };
  };
  const add = async () => {
    const rule = { id: id.value.trim(), prefix: prefix.value, expireDays: expire.value.trim(), abortDays: abort.value.trim() };
    const { rules } = await current(rule);
    rule.id = rule.id || lifecycleRuleID(rule, rules);
    const done = await confirmShowing(
      'Add lifecycle rule',
      describeLifecycleRule(rule),
      `<Rule>${lifecycleRuleXML(rule, rules)}</Rule>`,
      async () => {
        const now = await current(rule);
        await save(lifecycleRuleAdded(now.xml, now.rules, rule));
      },
      'Add rule',
      rule.expireDays ? 'danger' : 'primary',
    );
    if (!done) throw new Error('Nothing was added.');
  };
  return form(
    { class: 'sub', 'data-test': 'lifecycle-form' },
    saver(add, say, 'Rule added.'),
    h('h3', null, 'Add a rule'),
    field('Prefix', prefix),
    h('div', { class: 'row' }, h('span', null, 'Delete objects'), expire, h('span', null, 'days after they are written')),
    h('div', { class: 'row' }, h('span', null, 'Abort unfinished multipart uploads'), abort, h('span', null, 'days after they began')),
    field('ID (optional)', id),
    h(
      'p',
      { class: 'hint' },
      'The rule is added to the rules above; it is shown before it is saved. Other rules — tags, sizes, versions — in the XML below.',
    ),
    submit('Add rule…', 'primary', { 'data-test': 'lifecycle-add' }),
  );
}
