// The unit tests' DOM: @xmldom/xmldom's DOMParser stands in for the
// browser's (the code under test uses only DOM Level 2 Core calls).
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// xmldom reports malformed XML through onError; the browser puts a
// <parsererror> element in the document, which is what parseXML checks.
class BrowserLikeDOMParser {
  parseFromString(text, type) {
    try {
      return new DOMParser({
        onError: (level, msg) => {
          if (level !== 'warning') throw new Error(msg);
        },
      }).parseFromString(text, type);
    } catch {
      return new DOMParser().parseFromString('<parsererror/>', 'application/xml');
    }
  }
}
globalThis.DOMParser = BrowserLikeDOMParser;
globalThis.XMLSerializer = XMLSerializer;

/** golden reads one of JOG's own golden XML answers (the Go tests' vectors). */
export function golden(dir, name) {
  const base = { s3: '../../../s3api/testdata/golden/', iam: '../../../iamapi/testdata/golden/' }[dir];
  return readFileSync(fileURLToPath(new URL(base + name, import.meta.url)), 'utf8');
}
