package s3api

import (
	"encoding/xml"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// checksumFields are the Checksum<ALG> elements S3 puts in several results.
type checksumFields struct {
	ChecksumCRC32     string `xml:"ChecksumCRC32,omitempty"`
	ChecksumCRC32C    string `xml:"ChecksumCRC32C,omitempty"`
	ChecksumCRC64NVME string `xml:"ChecksumCRC64NVME,omitempty"`
	ChecksumSHA1      string `xml:"ChecksumSHA1,omitempty"`
	ChecksumSHA256    string `xml:"ChecksumSHA256,omitempty"`
}

func (c *checksumFields) set(alg, value string) {
	switch checksum.Algorithm(alg) {
	case checksum.CRC32:
		c.ChecksumCRC32 = value
	case checksum.CRC32C:
		c.ChecksumCRC32C = value
	case checksum.CRC64NVME:
		c.ChecksumCRC64NVME = value
	case checksum.SHA1:
		c.ChecksumSHA1 = value
	case checksum.SHA256:
		c.ChecksumSHA256 = value
	}
}

// only returns the single value set, if exactly one is.
func (c checksumFields) only() (checksum.Algorithm, string, int) {
	var alg checksum.Algorithm
	var val string
	n := 0
	for _, f := range []struct {
		a checksum.Algorithm
		v string
	}{{checksum.CRC32, c.ChecksumCRC32}, {checksum.CRC32C, c.ChecksumCRC32C}, {checksum.CRC64NVME, c.ChecksumCRC64NVME},
		{checksum.SHA1, c.ChecksumSHA1}, {checksum.SHA256, c.ChecksumSHA256}} {
		if f.v != "" {
			alg, val, n = f.a, f.v, n+1
		}
	}
	return alg, val, n
}

func partChecksum(p meta.Part) checksumFields {
	var c checksumFields
	c.set(p.ChecksumAlgorithm, p.Checksum)
	return c
}

type initiateMultipartUploadResult struct {
	XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
	Xmlns    string   `xml:"xmlns,attr"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	UploadID string   `xml:"UploadId"`
}

type completeMultipartUpload struct {
	XMLName xml.Name `xml:"CompleteMultipartUpload"`
	Parts   []completedPart
}

type completedPart struct {
	PartNumber int    `xml:"PartNumber"`
	ETag       string `xml:"ETag"`
	checksumFields
}

// UnmarshalXML decodes <CompleteMultipartUpload>, refusing more than
// service.MaxParts <Part> elements as soon as the next one starts: 4 MiB of
// "<Part/>" would otherwise expand into 600,000 structs (~140 MiB).
func (c *completeMultipartUpload) UnmarshalXML(dec *xml.Decoder, start xml.StartElement) error {
	if start.Name.Local != "CompleteMultipartUpload" {
		return errMalformedXML
	}
	c.XMLName = start.Name
	return decodeChildren(dec, func(t xml.StartElement) error {
		if t.Name.Local != "Part" {
			return dec.Skip()
		}
		if len(c.Parts) == service.MaxParts {
			return errTooManyElements
		}
		var p completedPart
		if err := dec.DecodeElement(&p, &t); err != nil {
			return err
		}
		c.Parts = append(c.Parts, p)
		return nil
	})
}

type completeMultipartUploadResult struct {
	XMLName  xml.Name `xml:"CompleteMultipartUploadResult"`
	Xmlns    string   `xml:"xmlns,attr"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

type copyPartResult struct {
	XMLName      xml.Name `xml:"CopyPartResult"`
	Xmlns        string   `xml:"xmlns,attr"`
	LastModified string   `xml:"LastModified"`
	ETag         string   `xml:"ETag"`
	checksumFields
}

type partEntry struct {
	PartNumber   int    `xml:"PartNumber"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
	checksumFields
}

type listPartsResult struct {
	XMLName              xml.Name    `xml:"ListPartsResult"`
	Xmlns                string      `xml:"xmlns,attr"`
	Bucket               string      `xml:"Bucket"`
	Key                  string      `xml:"Key"`
	UploadID             string      `xml:"UploadId"`
	Initiator            owner       `xml:"Initiator"`
	Owner                owner       `xml:"Owner"`
	StorageClass         string      `xml:"StorageClass"`
	PartNumberMarker     int         `xml:"PartNumberMarker"`
	NextPartNumberMarker int         `xml:"NextPartNumberMarker"`
	MaxParts             int         `xml:"MaxParts"`
	IsTruncated          bool        `xml:"IsTruncated"`
	Parts                []partEntry `xml:"Part"`
	ChecksumAlgorithm    string      `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType         string      `xml:"ChecksumType,omitempty"`
}

type uploadEntry struct {
	Key               string `xml:"Key"`
	UploadID          string `xml:"UploadId"`
	Initiator         owner  `xml:"Initiator"`
	Owner             owner  `xml:"Owner"`
	StorageClass      string `xml:"StorageClass"`
	Initiated         string `xml:"Initiated"`
	ChecksumAlgorithm string `xml:"ChecksumAlgorithm,omitempty"`
	ChecksumType      string `xml:"ChecksumType,omitempty"`
}

type listMultipartUploadsResult struct {
	XMLName            xml.Name       `xml:"ListMultipartUploadsResult"`
	Xmlns              string         `xml:"xmlns,attr"`
	Bucket             string         `xml:"Bucket"`
	KeyMarker          string         `xml:"KeyMarker"`
	UploadIDMarker     string         `xml:"UploadIdMarker"`
	NextKeyMarker      string         `xml:"NextKeyMarker,omitempty"`
	NextUploadIDMarker string         `xml:"NextUploadIdMarker,omitempty"`
	Prefix             string         `xml:"Prefix"`
	Delimiter          string         `xml:"Delimiter,omitempty"`
	MaxUploads         int            `xml:"MaxUploads"`
	EncodingType       string         `xml:"EncodingType,omitempty"`
	IsTruncated        bool           `xml:"IsTruncated"`
	Uploads            []uploadEntry  `xml:"Upload"`
	CommonPrefixes     []commonPrefix `xml:"CommonPrefixes"`
}

type attributesResult struct {
	XMLName      xml.Name           `xml:"GetObjectAttributesResponse"`
	Xmlns        string             `xml:"xmlns,attr"`
	ETag         string             `xml:"ETag,omitempty"`
	Checksum     *attributeChecksum `xml:"Checksum,omitempty"`
	ObjectParts  *attributeParts    `xml:"ObjectParts,omitempty"`
	StorageClass string             `xml:"StorageClass,omitempty"`
	ObjectSize   *int64             `xml:"ObjectSize,omitempty"`
}

type attributeChecksum struct {
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

type attributeParts struct {
	TotalPartsCount      int             `xml:"PartsCount"`
	PartNumberMarker     int             `xml:"PartNumberMarker"`
	NextPartNumberMarker int             `xml:"NextPartNumberMarker"`
	MaxParts             int             `xml:"MaxParts"`
	IsTruncated          bool            `xml:"IsTruncated"`
	Parts                []attributePart `xml:"Part"`
}

type attributePart struct {
	PartNumber int   `xml:"PartNumber"`
	Size       int64 `xml:"Size"`
	checksumFields
}
