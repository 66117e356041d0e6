package s3api

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"sync"
)

// A page of 1,000 keys is the largest response JOG sends often, and
// encoding/xml's reflection took more server CPU than the listing query
// itself. appendXML writes the same bytes by hand (TestListXMLMatches
// checks them against encoding/xml).

var xmlBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeTo writes res as encoding/xml would marshal it.
func (res listBucketResult) writeTo(b *bytes.Buffer) {
	b.WriteString(`<ListBucketResult xmlns="`)
	xmlText(b, res.Xmlns)
	b.WriteString(`">`)
	xmlElem(b, "Name", res.Name)
	xmlElem(b, "Prefix", res.Prefix)
	if res.Marker != nil {
		xmlElem(b, "Marker", *res.Marker)
	}
	xmlOptElem(b, "NextMarker", res.NextMarker)
	xmlOptElem(b, "ContinuationToken", res.ContToken)
	xmlOptElem(b, "NextContinuationToken", res.NextContToken)
	xmlOptElem(b, "StartAfter", res.StartAfter)
	if res.KeyCount != nil {
		xmlElem(b, "KeyCount", strconv.Itoa(*res.KeyCount))
	}
	xmlElem(b, "MaxKeys", strconv.Itoa(res.MaxKeys))
	xmlOptElem(b, "Delimiter", res.Delimiter)
	xmlOptElem(b, "EncodingType", res.EncodingType)
	xmlElem(b, "IsTruncated", strconv.FormatBool(res.IsTruncated))
	for i := range res.Contents {
		e := &res.Contents[i]
		b.WriteString("<Contents>")
		xmlElem(b, "Key", e.Key)
		xmlElem(b, "LastModified", e.LastModified)
		xmlElem(b, "ETag", e.ETag)
		xmlElem(b, "Size", strconv.FormatInt(e.Size, 10))
		xmlElem(b, "StorageClass", e.StorageClass)
		if e.Owner != nil {
			b.WriteString("<Owner>")
			xmlElem(b, "ID", e.Owner.ID)
			xmlElem(b, "DisplayName", e.Owner.DisplayName)
			b.WriteString("</Owner>")
		}
		b.WriteString("</Contents>")
	}
	for _, cp := range res.CommonPrefixes {
		b.WriteString("<CommonPrefixes>")
		xmlElem(b, "Prefix", cp.Prefix)
		b.WriteString("</CommonPrefixes>")
	}
	b.WriteString("</ListBucketResult>")
}

func xmlElem(b *bytes.Buffer, name, text string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.WriteByte('>')
	xmlText(b, text)
	b.WriteString("</")
	b.WriteString(name)
	b.WriteByte('>')
}

// xmlOptElem is xmlElem for an omitempty field.
func xmlOptElem(b *bytes.Buffer, name, text string) {
	if text != "" {
		xmlElem(b, name, text)
	}
}

// xmlText escapes s as encoding/xml does; text of plain printable ASCII
// (most keys) is copied as it is.
func xmlText(b *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '&' || c == '<' || c == '>' || c == '"' || c == '\'' {
			_ = xml.EscapeText(b, []byte(s))
			return
		}
	}
	b.WriteString(s)
}
