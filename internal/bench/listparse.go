package bench

import (
	"bytes"
	"errors"
	"html"
)

// The list parsers read what the bench needs from a listing by looking for
// those few elements by name instead of unmarshalling the document: on a
// 1,000-key page, encoding/xml cost the client more CPU than the server
// spent answering, and the client shares the machine with the server.

// scanXML walks the tags of b in order. A tag named in leaves is read with
// its text: fn gets the name and the unescaped text, and the scan goes on
// after the text. Any other tag, opening or closing ("/Name"), reaches fn
// with no text. (name is a []byte so that
// switching on it allocates nothing.)
func scanXML(b []byte, leaves []string, fn func(name []byte, text string)) error {
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
		name, rest, ok := bytes.Cut(b, []byte{'>'})
		if !ok {
			return errors.New("list: truncated XML")
		}
		b = rest
		leaf := false
		for _, l := range leaves {
			leaf = leaf || string(name) == l
		}
		if !leaf {
			fn(name, "")
			continue
		}
		end := bytes.Index(b, []byte("</"+string(name)+">"))
		if end < 0 {
			return errors.New("list: unclosed <" + string(name) + ">")
		}
		fn(name, xmlUnescape(b[:end]))
		b = b[end:]
	}
}

var listLeaves = []string{"Key", "Prefix", "IsTruncated", "NextContinuationToken"}

// parseListPage reads a ListObjectsV2 response: the keys, the common
// prefixes and the continuation.
func parseListPage(b []byte) (ListPage, error) {
	var p ListPage
	if !bytes.Contains(b, []byte("<ListBucketResult")) {
		return p, errors.New("list: the response is not a ListBucketResult")
	}
	truncated, inPrefixes := false, false
	err := scanXML(b, listLeaves, func(name []byte, text string) {
		switch string(name) {
		case "CommonPrefixes":
			inPrefixes = true
		case "/CommonPrefixes":
			inPrefixes = false
		case "Key":
			p.Keys = append(p.Keys, text)
		case "Prefix":
			if inPrefixes {
				p.Prefixes = append(p.Prefixes, text)
			}
		case "IsTruncated":
			truncated = text == "true"
		case "NextContinuationToken":
			p.NextToken = text
		}
	})
	if err != nil {
		return p, err
	}
	if !truncated {
		p.NextToken = ""
	} else if p.NextToken == "" {
		return p, errors.New("list: truncated page without a continuation token")
	}
	return p, nil
}

var versionLeaves = []string{"Key", "VersionId", "IsTruncated", "NextKeyMarker", "NextVersionIdMarker"}

// parseVersionsPage reads a ListObjectVersions response: the versions and
// delete markers in order, and the markers to continue from.
func parseVersionsPage(b []byte) (VersionsPage, error) {
	var p VersionsPage
	if !bytes.Contains(b, []byte("<ListVersionsResult")) {
		return p, errors.New("list versions: the response is not a ListVersionsResult")
	}
	truncated := false
	var cur *ObjectVersion // the entry being read
	err := scanXML(b, versionLeaves, func(name []byte, text string) {
		switch string(name) {
		case "Version", "DeleteMarker":
			p.Versions = append(p.Versions, ObjectVersion{DeleteMarker: string(name) == "DeleteMarker"})
			cur = &p.Versions[len(p.Versions)-1]
		case "/Version", "/DeleteMarker":
			cur = nil
		case "Key":
			if cur != nil {
				cur.Key = text
			}
		case "VersionId":
			if cur != nil {
				cur.VersionID = text
			}
		case "IsTruncated":
			truncated = text == "true"
		case "NextKeyMarker":
			p.NextKeyMarker = text
		case "NextVersionIdMarker":
			p.NextVersionIDMarker = text
		}
	})
	if err != nil {
		return p, err
	}
	if !truncated {
		p.NextKeyMarker, p.NextVersionIDMarker = "", ""
	} else if p.NextKeyMarker == "" {
		return p, errors.New("list versions: truncated page without a next key marker")
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
