package meta

import (
	"encoding/json"
	"fmt"
)

// EncodeEncryption is the stored form of e: nil for no encryption, else
// JSON. Every store keeps it in one column (SQLite BLOB, PostgreSQL
// bytea) of objects and uploads.
func EncodeEncryption(e Encryption) []byte {
	if !e.Encrypted() {
		return nil
	}
	b, err := json.Marshal(e)
	if err != nil { // a struct of strings, bools and byte slices
		panic(err)
	}
	return b
}

// DecodeEncryption reads what EncodeEncryption stored (nil or empty: no
// encryption).
func DecodeEncryption(b []byte) (Encryption, error) {
	if len(b) == 0 {
		return Encryption{}, nil // before e, which escapes to the heap
	}
	var e Encryption
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("stored encryption record: %w", err)
	}
	return e, nil
}
