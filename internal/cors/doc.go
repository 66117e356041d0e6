// Package cors owns S3's bucket CORS configuration: the document
// PutBucketCors accepts and GetBucketCors returns (Config, ParseXML,
// Validate), and its evaluation against a browser's requests (Compile,
// Rules.Preflight, Rules.Actual), as S3 evaluates it:
//
//   - the first rule whose AllowedOrigin, AllowedMethod and (for a
//     preflight) AllowedHeader all match wins;
//   - an origin or header pattern holds at most one "*", which matches any
//     run of characters, the empty one included; origins match byte for
//     byte, header names without regard to case;
//   - a rule matched through the origin "*" answers
//     Access-Control-Allow-Origin: * and no Access-Control-Allow-Credentials;
//     any other answers the request's origin and credentials "true";
//   - an actual request matches on its Access-Control-Request-Method when it
//     sends one, else on its method; its headers are not checked.
//
// It knows nothing of storage or of the S3 wire errors: its errors are
// sentinels and types that internal/s3api/errors.go maps.
package cors
