package bench

import (
	"bytes"
	"errors"
	"html"
)

// parseListPage reads what the bench needs from a ListObjectsV2 response:
// the keys, the common prefixes and the continuation. It looks for those
// few elements by name instead of unmarshalling the document: on a
// 1,000-key page, encoding/xml cost the client more CPU than the server
// spent answering, and the client shares the machine with the server.
func parseListPage(b []byte) (ListPage, error) {
	var p ListPage
	if !bytes.Contains(b, []byte("<ListBucketResult")) {
		return p, errors.New("list: the response is not a ListBucketResult")
	}
	truncated, inPrefixes := false, false
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			break
		}
		b = b[i+1:]
		name, rest, ok := bytes.Cut(b, []byte{'>'})
		if !ok {
			return p, errors.New("list: truncated XML")
		}
		b = rest
		switch string(name) {
		case "CommonPrefixes":
			inPrefixes = true
		case "/CommonPrefixes":
			inPrefixes = false
		case "Key", "Prefix", "IsTruncated", "NextContinuationToken":
			end := bytes.Index(b, []byte("</"+string(name)+">"))
			if end < 0 {
				return p, errors.New("list: unclosed <" + string(name) + ">")
			}
			text := xmlUnescape(b[:end])
			b = b[end:]
			switch {
			case string(name) == "Key":
				p.Keys = append(p.Keys, text)
			case string(name) == "Prefix" && inPrefixes:
				p.Prefixes = append(p.Prefixes, text)
			case string(name) == "IsTruncated":
				truncated = text == "true"
			case string(name) == "NextContinuationToken":
				p.NextToken = text
			}
		}
	}
	if !truncated {
		p.NextToken = ""
	} else if p.NextToken == "" {
		return p, errors.New("list: truncated page without a continuation token")
	}
	return p, nil
}

// xmlUnescape decodes character data: entities and character references
// (html.UnescapeString knows all of XML's), nothing else to undo.
func xmlUnescape(b []byte) string {
	if bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	return html.UnescapeString(string(b))
}
