package bucketrepl

import (
	"fmt"
	"strings"

	"github.com/jogstore/jog/internal/tagging"
)

// s3StorageClasses are the classes S3 knows besides STANDARD: naming one
// is refused as not implemented, naming anything else is invalid.
var s3StorageClasses = map[string]bool{
	"REDUCED_REDUNDANCY": true, "STANDARD_IA": true, "ONEZONE_IA": true, "INTELLIGENT_TIERING": true,
	"GLACIER": true, "DEEP_ARCHIVE": true, "OUTPOSTS": true, "GLACIER_IR": true, "EXPRESS_ONEZONE": true,
}

// Validate checks c as S3 checks a PutBucketReplication document
// (package doc). It does not resolve destinations (Targets.Bind).
func (c Config) Validate() error {
	if len(c.Rules) == 0 || len(c.Rules) > MaxRules {
		return malformed("%d rules (1 to %d)", len(c.Rules), MaxRules)
	}
	v2 := c.Rules[0].V2()
	ids := make(map[string]bool, len(c.Rules))
	priorities := make(map[int]bool, len(c.Rules))
	for _, r := range c.Rules {
		if r.V2() != v2 {
			return invalidRequest("A replication configuration cannot mix rules with a Prefix (the V1 schema) and rules with a Filter (V2): use Filter in every rule.")
		}
		if err := r.validate(); err != nil {
			return err
		}
		if ids[r.ID] {
			return invalidArgument("Rule Id must be unique. Found same ID %q for more than one rule.", r.ID)
		}
		ids[r.ID] = true
		if !v2 {
			continue
		}
		if priorities[*r.Priority] {
			return invalidRequest("Found duplicate priority %d. Priority must be unique among all rules.", *r.Priority)
		}
		priorities[*r.Priority] = true
	}
	if !v2 {
		return c.checkPrefixOverlap()
	}
	return nil
}

// checkPrefixOverlap refuses two V1 rules of which one's prefix starts the
// other's: S3 could not say which one applies.
func (c Config) checkPrefixOverlap() error {
	for i, a := range c.Rules {
		for _, b := range c.Rules[i+1:] {
			if strings.HasPrefix(*a.Prefix, *b.Prefix) || strings.HasPrefix(*b.Prefix, *a.Prefix) {
				return invalidRequest("Found overlapping prefixes '%s' and '%s' for same destination bucket.", *a.Prefix, *b.Prefix)
			}
		}
	}
	return nil
}

func (r Rule) validate() error {
	if len(r.ID) > MaxIDLength {
		return invalidArgument("ID length should not exceed allowed limit of %d", MaxIDLength)
	}
	if !validStatus(r.Status) {
		return malformed("Status %q", r.Status)
	}
	switch {
	case r.Prefix != nil && r.Filter != nil:
		return malformed("a rule has both Prefix and Filter")
	case r.Prefix == nil && r.Filter == nil:
		return malformed("a rule has neither Prefix nor Filter")
	}
	if r.V2() {
		if err := r.validateV2(); err != nil {
			return err
		}
	} else if r.DeleteMarkerReplication != nil {
		return invalidRequest("DeleteMarkerReplication cannot be specified with a rule-level Prefix (the V1 schema, whose rules replicate delete markers): use a Filter to choose.")
	}
	for _, s := range []*Switch{r.ExistingObjectReplication, r.DeleteMarkerReplication} {
		if s != nil && !validStatus(s.Status) {
			return malformed("Status %q", s.Status)
		}
	}
	if err := r.SourceSelectionCriteria.validate(); err != nil {
		return err
	}
	return r.Destination.validate()
}

func (r Rule) validateV2() error {
	if r.Priority == nil {
		return invalidRequest("Priority must be specified for this version of Cross Region Replication configuration schema.")
	}
	if *r.Priority < 0 {
		return invalidArgument("Priority must be a non-negative integer.")
	}
	if r.DeleteMarkerReplication == nil {
		return invalidRequest("DeleteMarkerReplication must be specified for this version of Cross Region Replication configuration schema.")
	}
	if err := r.Filter.validate(); err != nil {
		return err
	}
	if r.DeleteMarkerReplication.On() && r.Filter.hasTags() {
		return invalidRequest("Delete marker replication is not supported if any Tag filter is specified.")
	}
	return nil
}

func validStatus(s string) bool { return s == Enabled || s == Disabled }

func (f Filter) validate() error {
	n := 0
	for _, set := range []bool{f.Prefix != nil, f.Tag != nil, f.And != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return malformed("a Filter holds more than one predicate outside And")
	}
	if f.Tag != nil {
		return tagging.Set{*f.Tag}.Validate(tagging.MaxObjectTags)
	}
	if a := f.And; a != nil {
		if a.Prefix == nil && len(a.Tags) == 0 {
			return malformed("an empty And")
		}
		return a.Tags.Validate(tagging.MaxObjectTags)
	}
	return nil
}

func (f *Filter) hasTags() bool {
	return f != nil && (f.Tag != nil || (f.And != nil && len(f.And.Tags) > 0))
}

func (s *SourceSelectionCriteria) validate() error {
	if s == nil {
		return nil
	}
	for _, sw := range []*Switch{s.SseKmsEncryptedObjects, s.ReplicaModifications} {
		if sw != nil && !validStatus(sw.Status) {
			return malformed("Status %q", sw.Status)
		}
	}
	if s.SseKmsEncryptedObjects.On() {
		return notImplemented("SourceSelectionCriteria SseKmsEncryptedObjects Enabled is not implemented: it needs a replica KMS key (EncryptionConfiguration), which JOG does not take.")
	}
	if s.ReplicaModifications.On() {
		return notImplemented("SourceSelectionCriteria ReplicaModifications Enabled is not implemented: JOG replicates one way, never a replica's changes back.")
	}
	return nil
}

func (d Destination) validate() error {
	if _, _, err := parseARN(d.Bucket); err != nil {
		return err
	}
	switch {
	case d.StorageClass == "" || d.StorageClass == StorageStandard:
		return nil
	case s3StorageClasses[d.StorageClass]:
		return notImplemented("StorageClass %s is not implemented: JOG has one storage class; name STANDARD or none.", d.StorageClass)
	}
	return &RuleError{Code: "InvalidStorageClass", Msg: fmt.Sprintf("The storage class you specified is not valid: %q.", d.StorageClass)}
}
