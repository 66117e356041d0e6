package datadir

import "errors"

// Names inside a data dir.
const (
	// DBFile is the SQLite metadata database (with its -wal and -shm
	// files beside it).
	DBFile = "jog.db"
	// CredentialsFile keeps the key pair generated when none is
	// configured (mode 0600).
	CredentialsFile = "credentials.json"
	// IAMKeyFile keeps the server key that seals IAM secret access keys
	// in the metadata store (internal/iam/keyring; mode 0600), unless
	// JOG_IAM_KEY gives it.
	IAMKeyFile = "iam.key"
	// SSEKeyFile keeps the master key of the built-in KMS, which seals
	// the keys that seal objects' data keys (internal/kms; mode 0600),
	// unless JOG_SSE_KEY gives it. Losing it loses every SSE-S3 and
	// SSE-KMS object (docs/SECURITY.md, "Encryption at rest").
	SSEKeyFile = "sse.key"
	// LockFile is the file a running server holds a lock on: exclusive
	// (Lock), or shared among gateways (LockShared).
	LockFile = "jog.lock"
	// QoSFile keeps the throughput `jog calibrate` measured (qos.Calibration,
	// JSON): the capacity reservations are admitted against where
	// --qos-read-capacity / --qos-write-capacity are not given.
	QoSFile = "qos.json"
	// TempDir holds the blobs being written, and what interrupted writes
	// left (the disk blob store creates it, beside blobs/ and packs/):
	// each gateway's files carry its ID, and its lock file says whether
	// it is alive (internal/blob/disk).
	TempDir = "tmp"
	// BlobsDir holds the blob files (internal/blob/disk), in every data
	// dir: with jog.db beside it, or alone when the metadata is elsewhere
	// (the gateways of a PostgreSQL store).
	BlobsDir = "blobs"
)

// ErrNotDataDir reports a directory that holds no JOG metadata store, met
// by a tool that works on an existing data dir (jog fsck).
var ErrNotDataDir = errors.New("not a jog data dir")
