// A browser-like document for the builders' tests: @xmldom/xmldom's DOM
// with the few calls the console's modules make that DOM Level 2 lacks
// (append, replaceChildren, remove, addEventListener, querySelector with
// simple selectors, a <dialog>'s showModal and close), and html(), which
// writes an element as markup with the properties h() sets (value,
// checked, disabled, …) so a test can compare whole trees.
import { DOMImplementation, Node } from '@xmldom/xmldom';

const doc = new DOMImplementation().createHTMLDocument('test');
const body = doc.createElement('body');
doc.documentElement.appendChild(body);
doc.body = body;

const P = Node.prototype;
P.append = function (...nodes) {
  for (const n of nodes) this.appendChild(typeof n === 'string' ? doc.createTextNode(n) : n);
};
P.replaceChildren = function (...nodes) {
  while (this.firstChild) this.removeChild(this.firstChild);
  this.append(...nodes);
};
P.remove = function () {
  if (this.parentNode) this.parentNode.removeChild(this);
};
P.addEventListener = function (type, fn) {
  (this.listeners ??= {})[type] = [...(this.listeners?.[type] || []), fn];
};

P.focus = function () {
  doc.activeElement = this;
};
// element.style, which the console sets from script (never as markup): a plain object per element.
Object.defineProperty(P, 'style', {
  get() {
    return (this.styles ??= {});
  },
});
P.showModal = function () {
  this.open = true;
};
P.close = function () {
  this.open = false;
};
// querySelectorAll matches one compound selector: tag, .class and [name=value] parts, no combinators.
P.querySelectorAll = function (sel) {
  const parts = sel.match(/^([a-z0-9]*)((?:\.[\w-]+|\[[\w-]+=[\w-]+\])*)$/);
  if (!parts) throw new Error(`test DOM: unsupported selector ${sel}`);
  const tests = [...parts[2].matchAll(/\.([\w-]+)|\[([\w-]+)=([\w-]+)\]/g)];
  const match = (el) =>
    (!parts[1] || el.localName === parts[1]) &&
    tests.every(([, cls, name, value]) =>
      cls ? (el.getAttribute('class') || '').split(' ').includes(cls) : el.getAttribute(name) === value,
    );
  const out = [];
  const walk = (n) => {
    for (const c of [...n.childNodes]) {
      if (c.nodeType === 1 && match(c)) out.push(c);
      walk(c);
    }
  };
  walk(this);
  return out;
};
P.querySelector = function (sel) {
  return this.querySelectorAll(sel)[0] || null;
};

globalThis.document = doc;
globalThis.Node = Node;

/** fire calls el's listeners of type with a minimal event; resolves when async listeners have. */
export function fire(el, type, extra = {}) {
  const ev = { type, target: el, button: 0, defaultPrevented: false, preventDefault: () => (ev.defaultPrevented = true), ...extra };
  return Promise.all((el.listeners?.[type] || []).map((fn) => fn(ev))).then(() => ev);
}

const PROPS = ['value', 'checked', 'disabled', 'selected', 'multiple', 'readOnly', 'required', 'hidden', 'open'];

/** html writes node as markup: attributes in order, then h()'s properties as .name=value, then children. */
export function html(node) {
  if (node.nodeType === 3) return node.data.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  if (node.nodeType !== 1) return [...node.childNodes].map(html).join('');
  const attrs = [...node.attributes].map((a) => ` ${a.name}="${a.value}"`);
  for (const p of PROPS) if (Object.hasOwn(node, p)) attrs.push(` .${p}=${JSON.stringify(node[p])}`);
  for (const t of Object.keys(node.listeners || {})) attrs.push(` @${t}`);
  return `<${node.localName}${attrs.join('')}>${[...node.childNodes].map(html).join('')}</${node.localName}>`;
}
