package meta

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// ObjectDocs are the JSON documents a store keeps of an object's content
// headers, user metadata and checksum, as both stores encode them; "" is
// none (Headers is always set).
type ObjectDocs struct {
	Headers, UserMeta, Checksum string
}

// EncodeObjectDocs encodes o's headers, user metadata and checksum.
func EncodeObjectDocs(o Object) (ObjectDocs, error) {
	var d ObjectDocs
	h, err := json.Marshal(o.Headers)
	if err != nil {
		return d, err
	}
	d.Headers = string(h)
	if len(o.UserMeta) > 0 {
		b, err := json.Marshal(o.UserMeta)
		if err != nil {
			return d, err
		}
		d.UserMeta = string(b)
	}
	if o.Checksum != (Checksum{}) {
		b, err := json.Marshal(o.Checksum)
		if err != nil {
			return d, err
		}
		d.Checksum = string(b)
	}
	return d, nil
}

// Decode sets o's headers, user metadata and checksum from d.
func (d ObjectDocs) Decode(o *Object) error {
	if err := decodeHeaders(d.Headers, &o.Headers); err != nil {
		return err
	}
	for _, f := range []struct {
		doc string
		dst any
	}{{d.UserMeta, &o.UserMeta}, {d.Checksum, &o.Checksum}} {
		if f.doc != "" {
			if err := json.Unmarshal([]byte(f.doc), f.dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// headerDocs memoises decoded header documents: objects share a handful of
// them (a content type or two), and every GET and HEAD decodes one. A
// ContentHeaders is a value of strings, so a copy is the caller's own. The
// memo stops growing at maxHeaderDocs; documents beyond are decoded each
// time.
var (
	headerDocs    sync.Map // string → ContentHeaders
	headerDocsLen atomic.Int64
)

const maxHeaderDocs = 4096

func decodeHeaders(doc string, dst *ContentHeaders) error {
	if doc == "" {
		return nil
	}
	if h, ok := headerDocs.Load(doc); ok {
		*dst = h.(ContentHeaders)
		return nil
	}
	var h ContentHeaders
	if err := json.Unmarshal([]byte(doc), &h); err != nil {
		return err
	}
	*dst = h
	if headerDocsLen.Load() < maxHeaderDocs {
		if _, loaded := headerDocs.LoadOrStore(doc, h); !loaded {
			headerDocsLen.Add(1)
		}
	}
	return nil
}
