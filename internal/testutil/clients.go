package testutil

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"
	miniocreds "github.com/minio/minio-go/v7/pkg/credentials"
)

// AWSClient returns an aws-sdk-go-v2 S3 client for s with the SDK's default
// settings (checksums, retries), path-style addressing.
func (s *Server) AWSClient(t testing.TB, optFns ...func(*s3.Options)) *s3.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(s.Config.Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(s.Config.AccessKey, s.Config.SecretKey, "")),
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.TLSClientConfig = testTransport().TLSClientConfig
		})),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s3.NewFromConfig(cfg, append([]func(*s3.Options){func(o *s3.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		o.UsePathStyle = true
	}}, optFns...)...)
}

// MinioClient returns a minio-go v7 client for s.
func (s *Server) MinioClient(t testing.TB) *minio.Client {
	t.Helper()
	u, _ := url.Parse(s.URL)
	c, err := minio.New(u.Host, &minio.Options{
		Creds:        miniocreds.NewStaticV4(s.Config.AccessKey, s.Config.SecretKey, ""),
		Region:       s.Config.Region,
		Secure:       u.Scheme == "https",
		BucketLookup: minio.BucketLookupPath,
		Transport:    testTransport(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
