package permissions

import (
	"errors"
	"net/url"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	known := func(a string) bool { return a == "s3:GetObject" || a == "s3:PutObject" }
	for _, c := range []struct {
		query string
		want  []string // nil: refused
	}{
		{"permissions&actions=s3:GetObject,s3:PutObject", []string{"s3:GetObject", "s3:PutObject"}},
		{"permissions&actions=s3:GetObject,%20s3:PutObject", []string{"s3:GetObject", "s3:PutObject"}},
		{"permissions&actions=s3:GetObject&X-Amz-Signature=x", []string{"s3:GetObject"}},
		{"permissions", nil},
		{"permissions&actions=", nil},
		{"permissions&actions=s3:GetObject&actions=s3:PutObject", nil},
		{"permissions&actions=s3:GetObject,s3:GetObject", nil},
		{"permissions&actions=s3:*", nil},
		{"permissions&actions=s3:GetObject&user=bob", nil},
		{"permissions&actions=s3:GetObject&principal=arn:aws:iam::1:user/bob", nil},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(q, known)
		var e *Error
		switch {
		case c.want == nil && !errors.As(err, &e):
			t.Errorf("%s: %v, %v; want an InvalidArgument", c.query, got, err)
		case c.want == nil && e.Code != "InvalidArgument":
			t.Errorf("%s: code %s", c.query, e.Code)
		case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("%s: %v, %v; want %v", c.query, got, err, c.want)
		}
	}
	many := "permissions&actions=s3:GetObject"
	for range MaxActions {
		many += ",s3:PutObject"
	}
	q, _ := url.ParseQuery(many)
	if _, err := Parse(q, known); err == nil {
		t.Errorf("%d actions accepted", MaxActions+1)
	}
}

func TestDecide(t *testing.T) {
	got, err := Decide([]string{"a", "b"}, func(a string) (bool, error) { return a == "b", nil })
	if err != nil || !slices.Equal(got, []Permission{{"a", false}, {"b", true}}) {
		t.Errorf("%v, %v", got, err)
	}
	boom := errors.New("boom")
	if _, err := Decide([]string{"a"}, func(string) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error %v, want the decision's", err)
	}
}
