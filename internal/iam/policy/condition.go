package policy

import (
	"encoding/base64"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// family is what a condition operator compares.
type family uint8

const (
	fString   family = iota // StringEquals: exact, case-sensitive
	fStringIC               // StringEqualsIgnoreCase
	fLike                   // StringLike: * and ?
	fNumeric
	fDate
	fBool
	fBinary
	fIP
	fARN
	fNull
)

// order is the comparison of a numeric or date operator.
type order uint8

const (
	oEq order = iota
	oLt
	oLe
	oGt
	oGe
)

// setOp is a condition's set operator prefix.
type setOp uint8

const (
	setNone setOp = iota
	setAny        // ForAnyValue:
	setAll        // ForAllValues:
)

type opSpec struct {
	fam    family
	ord    order
	negate bool
}

// operators are IAM's condition operators, without set prefix and IfExists.
var operators = map[string]opSpec{
	"StringEquals":              {fam: fString},
	"StringNotEquals":           {fam: fString, negate: true},
	"StringEqualsIgnoreCase":    {fam: fStringIC},
	"StringNotEqualsIgnoreCase": {fam: fStringIC, negate: true},
	"StringLike":                {fam: fLike},
	"StringNotLike":             {fam: fLike, negate: true},
	"NumericEquals":             {fam: fNumeric, ord: oEq},
	"NumericNotEquals":          {fam: fNumeric, ord: oEq, negate: true},
	"NumericLessThan":           {fam: fNumeric, ord: oLt},
	"NumericLessThanEquals":     {fam: fNumeric, ord: oLe},
	"NumericGreaterThan":        {fam: fNumeric, ord: oGt},
	"NumericGreaterThanEquals":  {fam: fNumeric, ord: oGe},
	"DateEquals":                {fam: fDate, ord: oEq},
	"DateNotEquals":             {fam: fDate, ord: oEq, negate: true},
	"DateLessThan":              {fam: fDate, ord: oLt},
	"DateLessThanEquals":        {fam: fDate, ord: oLe},
	"DateGreaterThan":           {fam: fDate, ord: oGt},
	"DateGreaterThanEquals":     {fam: fDate, ord: oGe},
	"Bool":                      {fam: fBool},
	"BinaryEquals":              {fam: fBinary},
	"IpAddress":                 {fam: fIP},
	"NotIpAddress":              {fam: fIP, negate: true},
	"ArnEquals":                 {fam: fARN},
	"ArnLike":                   {fam: fARN},
	"ArnNotEquals":              {fam: fARN, negate: true},
	"ArnNotLike":                {fam: fARN, negate: true},
	"Null":                      {fam: fNull},
}

// cond is one compiled condition (one key of one operator).
type cond struct {
	opSpec
	set      setOp
	ifExists bool
	key      string // lower case
	timeKey  bool   // aws:CurrentTime or aws:EpochTime: Request.Time stands in

	pats  []pattern // string, bool, binary values
	arns  []arnValue
	nums  []float64
	times []time.Time
	nets  []netip.Prefix
	nulls []bool // Null: true means "the key is absent"
}

func parseOperator(name string) (opSpec, setOp, bool, bool) {
	set := setNone
	if rest, ok := strings.CutPrefix(name, "ForAnyValue:"); ok {
		set, name = setAny, rest
	} else if rest, ok := strings.CutPrefix(name, "ForAllValues:"); ok {
		set, name = setAll, rest
	}
	base, ifExists := strings.CutSuffix(name, "IfExists")
	spec, ok := operators[base]
	if !ok || (spec.fam == fNull && (ifExists || set != setNone)) {
		return opSpec{}, 0, false, false
	}
	return spec, set, ifExists, true
}

func compileCondition(c Condition, vars bool) (cond, error) {
	spec, set, ifExists, ok := parseOperator(c.Operator)
	if !ok {
		return cond{}, malformed("Invalid Condition type : %s", c.Operator)
	}
	k := cond{opSpec: spec, set: set, ifExists: ifExists, key: strings.ToLower(c.Key)}
	k.timeKey = k.key == "aws:currenttime" || k.key == "aws:epochtime"
	bad := func(v string) error {
		return malformed("Invalid Condition value %q for operator %s", v, c.Operator)
	}
	for _, v := range c.Values {
		switch spec.fam {
		case fString, fStringIC:
			k.pats = append(k.pats, compilePattern(v, false, vars))
		case fLike:
			k.pats = append(k.pats, compilePattern(v, true, vars))
		case fBool:
			lv := strings.ToLower(v)
			if lv != "true" && lv != "false" && !(vars && strings.Contains(v, "${")) {
				return cond{}, bad(v)
			}
			k.pats = append(k.pats, compilePattern(lv, false, vars))
		case fBinary:
			if _, err := base64.StdEncoding.DecodeString(v); err != nil {
				return cond{}, bad(v)
			}
			k.pats = append(k.pats, compilePattern(v, false, false))
		case fNumeric:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return cond{}, bad(v)
			}
			k.nums = append(k.nums, n)
		case fDate:
			t, ok := parseDate(v)
			if !ok {
				return cond{}, bad(v)
			}
			k.times = append(k.times, t)
		case fIP:
			p, ok := parseNet(v)
			if !ok {
				return cond{}, bad(v)
			}
			k.nets = append(k.nets, p)
		case fARN:
			var a arnValue
			if parts := strings.SplitN(v, ":", 6); len(parts) == 6 {
				for i, part := range parts {
					a.parts[i] = compilePattern(part, true, vars)
				}
			} else if !strings.Contains(v, ":") {
				a.whole, a.parts[0] = true, compilePattern(v, true, vars)
			} else {
				a.never = true // not an ARN: matches nothing
			}
			k.arns = append(k.arns, a)
		case fNull:
			switch strings.ToLower(v) {
			case "true":
				k.nulls = append(k.nulls, true)
			case "false":
				k.nulls = append(k.nulls, false)
			default:
				return cond{}, bad(v)
			}
		}
	}
	return k, nil
}

// parseDate accepts the forms IAM documents for Date operators: ISO 8601
// (a date, or a date and time with or without fractions and zone; no zone
// is UTC) and seconds since the epoch.
func parseDate(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Unix(n, 0), true
	}
	return time.Time{}, false
}

// parseNet accepts a CIDR block or a single address (IPv4 or IPv6).
func parseNet(v string) (netip.Prefix, bool) {
	if p, err := netip.ParsePrefix(v); err == nil {
		if p.Addr().Is4In6() {
			return netip.Prefix{}, false
		}
		return p.Masked(), true
	}
	if a, err := netip.ParseAddr(v); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true
	}
	return netip.Prefix{}, false
}

// eval is the condition's value for the request, with AWS's rules for
// keys the request lacks: false, except that a negated operator, an
// …IfExists operator and ForAllValues are true.
func (c *cond) eval(r *Request) bool {
	vals := r.values(c.key)
	if c.fam == fNull {
		for _, absent := range c.nulls {
			if absent == (len(vals) == 0) {
				return true
			}
		}
		return false
	}
	if c.fam == fDate && c.timeKey && !r.Time.IsZero() {
		return c.matchTime(r.Time) != c.negate // the request's own time, not reparsed
	}
	if len(vals) == 0 {
		switch {
		case c.ifExists || c.set == setAll:
			return true
		case c.set == setAny:
			return false
		}
		return c.negate
	}
	switch c.set {
	case setAll: // every request value satisfies the operator
		for _, v := range vals {
			if c.matchOne(v, r) == c.negate {
				return false
			}
		}
		return true
	case setAny: // at least one request value satisfies it
		for _, v := range vals {
			if c.matchOne(v, r) != c.negate {
				return true
			}
		}
		return false
	}
	for _, v := range vals {
		if c.matchOne(v, r) {
			return !c.negate
		}
	}
	return c.negate
}

// matchOne reports whether one request value matches any of the
// condition's values (in the operator's positive sense).
func (c *cond) matchOne(v string, r *Request) bool {
	switch c.fam {
	case fString, fBinary:
		return matchAny(c.pats, v, false, r)
	case fStringIC, fLike, fBool:
		return matchAny(c.pats, v, c.fam != fLike, r)
	case fNumeric:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return false
		}
		for _, p := range c.nums {
			if compare(n, p, c.ord) {
				return true
			}
		}
		return false
	case fDate:
		t, ok := parseDate(v)
		return ok && c.matchTime(t)
	case fIP:
		a, err := netip.ParseAddr(v)
		if err != nil {
			return false
		}
		a = a.Unmap()
		for _, p := range c.nets {
			if p.Contains(a) {
				return true
			}
		}
		return false
	case fARN:
		for i := range c.arns {
			if matchARN(&c.arns[i], v, r) {
				return true
			}
		}
	}
	return false
}

func (c *cond) matchTime(t time.Time) bool {
	for _, p := range c.times {
		if compare(float64(t.Compare(p)), 0, c.ord) {
			return true
		}
	}
	return false
}

func compare(a, b float64, o order) bool {
	switch o {
	case oLt:
		return a < b
	case oLe:
		return a <= b
	case oGt:
		return a > b
	case oGe:
		return a >= b
	}
	return a == b
}

func matchAny(pats []pattern, v string, fold bool, r *Request) bool {
	for i := range pats {
		if pats[i].match(v, fold, r) {
			return true
		}
	}
	return false
}

// arnValue is an ArnEquals/ArnLike value: the six components of an ARN;
// or (whole) one pattern, for a value without colons such as "*"; or
// (never) a value with colons that is not an ARN.
type arnValue struct {
	whole, never bool
	parts        [6]pattern
}

// matchARN matches an ARN component by component (each may hold
// wildcards), as ArnEquals and ArnLike do.
func matchARN(a *arnValue, v string, r *Request) bool {
	switch {
	case a.never:
		return false
	case a.whole:
		return a.parts[0].match(v, false, r)
	}
	rest := v
	for i := 0; i < 5; i++ {
		part, tail, ok := strings.Cut(rest, ":")
		if !ok || !a.parts[i].match(part, false, r) {
			return false
		}
		rest = tail
	}
	return a.parts[5].match(rest, false, r)
}
