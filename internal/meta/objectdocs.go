package meta

import "encoding/json"

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
	for _, f := range []struct {
		doc string
		dst any
	}{{d.Headers, &o.Headers}, {d.UserMeta, &o.UserMeta}, {d.Checksum, &o.Checksum}} {
		if f.doc != "" {
			if err := json.Unmarshal([]byte(f.doc), f.dst); err != nil {
				return err
			}
		}
	}
	return nil
}
