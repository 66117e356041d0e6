// A small element builder: h('button', {class: 'x', 'data-test': 'y',
// onclick: fn}, 'text', child). Text is always set as text, never as HTML,
// and nothing uses style attributes, so the strict CSP holds. Below it, the
// pieces every page is built of: dialogs, buttons, forms, toolbars, tables.

const PROPS = new Set(['value', 'checked', 'disabled', 'selected', 'multiple', 'readOnly', 'required', 'hidden', 'open']);

export function h(tag, attrs, ...children) {
  const el = tag.startsWith('svg:') ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (PROPS.has(k)) el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** add appends children to el, skipping null, undefined and false, flattening arrays. */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** fill empties el and appends children (as add does). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** KEEP, returned by a dialog's onSubmit, keeps the dialog open. */
export const KEEP = Symbol('keep');

/**
 * dialog opens a modal <dialog> holding a form built by body(form, close);
 * Escape closes it (the browser's own), Enter submits the form. Resolves
 * when closed. onSubmit(form) may throw to keep it open (the error shows
 * inside); it resolves to close.
 */
export function dialog(title, body, onSubmit) {
  return new Promise((resolve) => {
    const err = h('p', { class: 'dialog-error', role: 'alert', hidden: true });
    const form = h('form', { method: 'dialog' });
    const dlg = h('dialog', { 'aria-label': title }, h('h2', null, title), form);
    const close = (v) => {
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    fill(form, body(form, close), err);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const btns = form.querySelectorAll('button[type=submit]');
      btns.forEach((b) => (b.disabled = true));
      try {
        const v = await onSubmit(form);
        if (v === KEEP) {
          err.hidden = true;
          btns.forEach((b) => (b.disabled = false));
        } else close(v === undefined ? true : v);
      } catch (x) {
        err.hidden = false;
        err.textContent = errText(x);
        btns.forEach((b) => (b.disabled = false));
      }
    });
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      close(false);
    });
    document.body.append(dlg);
    dlg.showModal();
  });
}

/** errText renders an error as "Code: Message". */
export function errText(e) {
  if (e && e.code && e.message && e.code !== e.message) return `${e.code}: ${e.message}`;
  return (e && (e.message || e.code)) || String(e);
}

/** field is a labelled input. */
export function field(label, input) {
  return h('label', { class: 'field' }, h('span', null, label), input);
}

/** button is a type=button <button> of class cls; attrs add data-test, aria-label, …. */
export function button(label, onclick, cls = 'secondary', attrs = null) {
  return h('button', { type: 'button', class: cls, ...attrs, onclick }, label);
}

/** submit is a form's submit button. */
export function submit(label, cls = 'primary', attrs = null) {
  return h('button', { type: 'submit', class: cls, ...attrs }, label);
}

/** buttons is a dialog's Cancel and submit buttons; ok is the submit's label or the button. */
export function buttons(close, ok, okAttrs = null, cancel = 'Cancel') {
  return h(
    'div',
    { class: 'buttons' },
    button(cancel, () => close(false)),
    typeof ok === 'string' ? submit(ok, 'primary', okAttrs) : ok,
  );
}

/** form is a <form> whose submit runs onsubmit() in place of loading a page. */
export function form(attrs, onsubmit, ...children) {
  const submitted = (e) => {
    e.preventDefault();
    return onsubmit();
  };
  return h('form', { ...attrs, onsubmit: submitted }, ...children);
}

/** saver wraps fn: say(done) after it, say("Code: Message") if it throws; resolves to whether it worked. */
export function saver(fn, say, done = 'Saved.') {
  return async () => {
    try {
      await fn();
      say(done);
      return true;
    } catch (x) {
      say(errText(x));
      return false;
    }
  };
}

/** toolbar is a heading (h1 or h2) and what goes beside it. */
export function toolbar(tag, title, ...children) {
  return h('div', { class: 'toolbar' }, h(tag, null, title), ...children);
}

/** thead is a header row of titles (a string, or a <th> with attributes). */
export function thead(titles) {
  return h(
    'thead',
    null,
    h(
      'tr',
      null,
      titles.map((t) => (typeof t === 'string' ? h('th', null, t) : t)),
    ),
  );
}

/** emptyRow is a table's only row when it has none: text across cols columns. */
export function emptyRow(cols, text) {
  return h('tr', null, h('td', { colspan: cols, class: 'empty' }, text));
}

/** table has a header of titles (null: none) and rows; no rows and an empty text: an emptyRow. */
export function table(attrs, titles, rows, empty = '') {
  return h(
    'table',
    attrs,
    titles && thead(titles),
    h('tbody', null, rows.length || !empty ? rows : emptyRow(titles && titles.length, empty)),
  );
}
