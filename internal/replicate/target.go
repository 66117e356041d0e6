package replicate

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/benbjohnson/litestream/s3"
)

// Target is where the replica lives: an S3 bucket and a prefix in it, on
// AWS or any S3-compatible endpoint (MinIO, another JOG).
type Target struct {
	// URL is s3://bucket/path.
	URL string
	// Endpoint is the S3 endpoint's URL (http://host:port); empty for AWS.
	// Requests are path-style when it is set.
	Endpoint string
	// Region signs the requests; empty: AWS finds the bucket's region,
	// another endpoint gets us-east-1.
	Region string
	// AccessKey and SecretKey sign the requests; empty: the AWS SDK's
	// default chain (AWS_ACCESS_KEY_ID, shared files, instance roles).
	AccessKey string
	SecretKey string
	// SkipVerify accepts any TLS certificate from Endpoint.
	SkipVerify bool
}

// ParseURL splits s3://bucket/path into the bucket and the path (without
// its leading slash; it may be empty).
func ParseURL(raw string) (bucket, path string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("replica URL %q: %v", raw, err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return "", "", fmt.Errorf("replica URL %q: want s3://bucket/path", raw)
	}
	if u.RawQuery != "" || u.User != nil {
		return "", "", fmt.Errorf("replica URL %q: no user or query: the endpoint, region and keys are settings of their own", raw)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}

// Validate checks the target without contacting it.
func (t Target) Validate() error {
	if _, _, err := ParseURL(t.URL); err != nil {
		return err
	}
	if (t.AccessKey == "") != (t.SecretKey == "") {
		return errors.New("the replica's access key and secret key must be given together")
	}
	if t.Endpoint != "" {
		u, err := url.Parse(t.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("replica endpoint %q: want http(s)://host[:port]", t.Endpoint)
		}
	}
	return nil
}

// client is Litestream's S3 replica client for t.
func (t Target) client() (*s3.ReplicaClient, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	bucket, path, _ := ParseURL(t.URL)
	c := s3.NewReplicaClient()
	c.Bucket, c.Path = bucket, path
	c.Endpoint, c.ForcePathStyle = t.Endpoint, t.Endpoint != ""
	c.Region = t.Region
	c.AccessKeyID, c.SecretAccessKey = t.AccessKey, t.SecretKey
	c.SkipVerify = t.SkipVerify
	return c, nil
}
