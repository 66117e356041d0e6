// The bucket policy section's forms for the common grants, beside its raw
// JSON editor (settings.js): public read of a prefix, and read-only access
// for one IAM user. Each is checked, shown as the statement it adds and
// confirmed, then appended to the bucket's policy (PutBucketPolicy of the
// whole document, its other statements kept).

import { h, field, submit, form, saver } from '../dom.js';
import { confirmShowing } from '../confirm.js';
import { checkPrefix, textInput } from './quickform.js';

const S3 = 'arn:aws:s3:::';

/** USER_ARN is an IAM user's ARN: arn:aws:iam::<12 digits>:user/<path><name>. */
const USER_ARN = /^arn:aws:iam::\d{12}:user\/(?:[\x21-\x7e]*\/)?[\w+=,.@-]{1,64}$/;
const USER_NAME = /^[\w+=,.@-]{1,64}$/;

/**
 * publicReadStatement lets anyone, signed or not, GET the objects of bucket whose keys begin with prefix (a
 * checkPrefix'd one: no wildcard of its own), and nothing else: not list them, not write.
 */
export function publicReadStatement(bucket, prefix) {
  return { Sid: 'PublicRead', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${S3}${bucket}/${prefix}*` };
}

/** readOnlyStatement lets the user arn list bucket and GET its objects. */
export function readOnlyStatement(bucket, arn) {
  return {
    Sid: 'ReadOnly',
    Effect: 'Allow',
    Principal: { AWS: arn },
    Action: ['s3:ListBucket', 's3:GetObject'],
    Resource: [`${S3}${bucket}`, `${S3}${bucket}/*`],
  };
}

/**
 * policyWith returns {text, statement}: the policy text ('' for none) with stmt appended to its statements, under a
 * Sid none of them has (stmt's, numbered), and the statement as added. Throws when text is not a policy, or when
 * one of its statements grants what stmt does already.
 */
export function policyWith(text, stmt) {
  const doc = text.trim() ? JSON.parse(text) : { Version: '2012-10-17', Statement: [] };
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('The policy is not a JSON object: mend it below.');
  const list = doc.Statement === undefined ? [] : [doc.Statement].flat();
  const grant = ({ Effect, Principal, Action, Resource, Condition }) => JSON.stringify([Effect, Principal, Action, Resource, Condition]);
  const same = list.find((s) => s && grant(s) === grant(stmt));
  if (same) throw new Error(`The policy grants this already${same.Sid ? ` (statement ${same.Sid})` : ''}.`);
  const sids = new Set(list.map((s) => s && s.Sid));
  let sid = stmt.Sid;
  for (let n = 2; sids.has(sid); n++) sid = `${stmt.Sid}${n}`;
  const statement = { ...stmt, Sid: sid };
  doc.Statement = [...list, statement];
  return { text: JSON.stringify(doc, null, 2), statement };
}

/**
 * userARN resolves what the user typed — an IAM user's name or ARN — to the user's ARN, with getUser(name) (its
 * ARN; throws IAM's error): a user that does not exist is refused, as is an ARN that is not that user's. A
 * principal IAM does not let look users up may still name one by a well-formed ARN.
 */
export async function userARN(typed, getUser) {
  const v = typed.trim();
  if (!v) throw new Error('Give a user: its name or its ARN.');
  const arn = v.startsWith('arn:') ? v : '';
  if (arn && !USER_ARN.test(arn)) throw new Error(`${arn} is not a user's ARN (arn:aws:iam::ACCOUNT:user/NAME).`);
  const name = arn ? arn.slice(arn.lastIndexOf('/') + 1) : v;
  if (!USER_NAME.test(name)) throw new Error(`${name} is not a user name (1 to 64 letters, digits and +=,.@_-).`);
  let found;
  try {
    found = await getUser(name);
  } catch (e) {
    if (e.code === 'NoSuchEntity') throw new Error(`There is no user ${name}: create it under Administration first.`);
    if (arn && e.code === 'AccessDenied') return arn;
    throw e;
  }
  if (arn && found !== arn) throw new Error(`The ARN of ${name} is ${found}, not ${arn}.`);
  return found;
}

/**
 * policyForms are the two forms adding a statement to bucket's policy: load() reads it ('' for none), when the
 * statement is shown and again when it is confirmed, so that it is added to what is there then; save(text) PUTs
 * it, getUser(name) looks a user's ARN up, say reports in the section.
 */
export function policyForms(bucket, load, save, getUser, say) {
  const prefix = textInput('policy-public-prefix', 'Public prefix', { placeholder: 'public/' });
  const user = textInput('policy-readonly-user', 'User name or ARN', { placeholder: 'alice, or arn:aws:iam::…:user/alice' });
  // add shows the statement policyWith adds, sentence saying what it does, and saves it once confirmed.
  const add = async (stmt, title, sentence, label, cls) => {
    const shown = policyWith(await load(), stmt).statement;
    const added = async () => save(policyWith(await load(), stmt).text);
    const done = await confirmShowing(title, sentence, JSON.stringify(shown, null, 2), added, label, cls);
    if (!done) throw new Error('Nothing was changed.');
  };
  const publicRead = async () => {
    const p = prefix.value;
    const why = checkPrefix(p, true);
    if (why) throw new Error(why);
    const loose = p.endsWith('/') ? '' : ` Keys such as “${p}-old.txt” begin with it too: end the prefix with / to mean a folder.`;
    await add(
      publicReadStatement(bucket, p),
      'Make a prefix public',
      `Anyone on the internet, without keys, may download every object of ${bucket} whose key begins with “${p}”: ` +
        `the Resource below. They may not list the bucket, and nothing outside the prefix becomes public.${loose}`,
      'Make public',
      'danger',
    );
  };
  const readOnly = async () => {
    const arn = await userARN(user.value, getUser);
    await add(
      readOnlyStatement(bucket, arn),
      'Grant read-only access',
      `${arn} may list ${bucket} and download its objects (unless a Deny says otherwise); the statement grants nothing else: no writes, no deletes.`,
      'Grant',
      'primary',
    );
  };
  // Each hook is written out whole: test/console finds the hooks it needs in the UI's source.
  return h(
    'div',
    null,
    form(
      { class: 'sub', 'data-test': 'policy-public-form' },
      saver(publicRead, say, 'Statement added.'),
      h('h3', null, 'Public read of a prefix'),
      field('Prefix', prefix),
      h('p', { class: 'hint' }, 'Anyone may then download the objects under it, without keys; not list them, not write.'),
      submit('Make public…', 'secondary', { 'data-test': 'policy-public-add' }),
    ),
    form(
      { class: 'sub', 'data-test': 'policy-readonly-form' },
      saver(readOnly, say, 'Statement added.'),
      h('h3', null, 'Read-only access for a user'),
      field('User', user),
      h('p', { class: 'hint' }, 'The user may list the bucket and download every object; not write or delete.'),
      submit('Grant read-only…', 'secondary', { 'data-test': 'policy-readonly-add' }),
    ),
    h('h3', null, 'The policy as JSON'),
  );
}
