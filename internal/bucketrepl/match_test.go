package bucketrepl

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	c, err := ParseXML(doc(
		v2("logs", 1, "<Prefix>logs/</Prefix>", ""),
		v2("tagged", 5, "<Tag><Key>dr</Key><Value>yes</Value></Tag>", ""),
		v2("tagged-logs", 3, "<And><Prefix>logs/</Prefix><Tag><Key>team</Key><Value>a</Value></Tag></And>", ""),
		v2("off", 9, "<Prefix>logs/x</Prefix>", "")))
	if err != nil {
		t.Fatal(err)
	}
	c.Rules[3].Status = Disabled
	for _, tc := range []struct {
		key  string
		tags map[string]string
		want string // "" for none
	}{
		{"img/a", nil, ""},
		{"logs/a", nil, "logs"},
		{"logs/x1", nil, "logs"}, // the rule of priority 9 is Disabled
		{"logs/a", map[string]string{"team": "a"}, "tagged-logs"},
		{"logs/a", map[string]string{"team": "b"}, "logs"},
		{"logs/a", map[string]string{"team": "a", "dr": "yes"}, "tagged"},
		{"img/a", map[string]string{"dr": "yes"}, "tagged"},
		{"img/a", map[string]string{"dr": "no"}, ""},
		{"img/a", map[string]string{"team": "a"}, ""},
	} {
		r, ok := c.Match(tc.key, tc.tags)
		if got := map[bool]string{true: r.ID}[ok]; got != tc.want {
			t.Errorf("Match(%q, %v) = %q, want %q", tc.key, tc.tags, got, tc.want)
		}
	}
}

func TestMatchEmptyFilterAndV1(t *testing.T) {
	c, err := ParseXML(doc(v2("all", 0, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Match("any/key", nil); !ok || r.ID != "all" {
		t.Errorf("empty Filter: %v %v", r.ID, ok)
	}
	c, err = ParseXML(doc(v1("a", "a/"), v1("b", "b/")))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"a/1": "a", "b/1": "b", "c/1": ""} {
		r, ok := c.Match(key, nil)
		if got := map[bool]string{true: r.ID}[ok]; got != want {
			t.Errorf("V1 Match(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestReplicatesDeleteMarkers(t *testing.T) {
	on := strings.Replace(v2("on", 2, "", ""), "<Status>Disabled</Status></Delete", "<Status>Enabled</Status></Delete", 1)
	c, err := ParseXML(doc(on, v2("off", 1, "<Prefix>p/</Prefix>", "")))
	if err != nil {
		t.Fatal(err)
	}
	v1c, err := ParseXML(doc(v1("v1", "")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    Rule
		want bool
	}{{c.Rules[0], true}, {c.Rules[1], false}, {v1c.Rules[0], true}} {
		if got := tc.r.ReplicatesDeleteMarkers(); got != tc.want {
			t.Errorf("%s: ReplicatesDeleteMarkers() = %v, want %v", tc.r.ID, got, tc.want)
		}
	}
}
