package s3api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// configReads are the bucket subresources JOG only reads: GET answers the
// empty state, the other methods are unsupported.
func configReads() []subresource {
	return slices.DeleteFunc(slices.Clone(bucketRoutes), func(s subresource) bool { return !s.unsupported })
}

// TestConfigReadsTable: every configuration read is routed for GET only,
// has its empty state (an error or a document, not both), and its other
// methods stay unsupported.
func TestConfigReadsTable(t *testing.T) {
	seen := 0
	for _, c := range configReads() {
		if c.ops != (methods{get: c.ops.get}) {
			t.Errorf("?%s: routes %+v; a configuration read routes GET only", c.param, c.ops)
		}
		for _, op := range []Op{c.ops.get, c.list} {
			if op == OpUnknown {
				continue
			}
			seen++
			e := emptyConfigs[op]
			if (e.err == nil) == (e.doc == nil) {
				t.Errorf("%v: empty state needs exactly one of an error and a document", op)
			}
			if e.err != nil && e.err.Status != http.StatusNotFound {
				t.Errorf("%v: %v, want a 404", op, e.err)
			}
			if !routed.has(op) || operations[op].serve == nil {
				t.Errorf("%v: not served", op)
			}
		}
		for _, m := range []string{"PUT", "DELETE", "POST", "HEAD"} {
			target := "/b?" + c.param
			if c.list != OpUnknown {
				target += "&id=x"
			}
			rt := ParseRoute(httptest.NewRequest(m, target, nil), "")
			if rt.Op != OpUnsupported || rt.Sub != c.param {
				t.Errorf("%s %s = %+v, want unsupported %q", m, target, rt, c.param)
			}
		}
	}
	var rows opSet
	for _, c := range configReads() {
		rows = rows.with(c.ops.get, c.list)
	}
	for o, e := range emptyConfigs {
		if (e.err != nil || e.doc != nil) && !rows.has(Op(o)) {
			t.Errorf("%v has an empty state but no configReads row", Op(o))
		}
	}
	if seen != 11 {
		t.Errorf("%d configuration reads, want 11", seen)
	}
}

// TestGoldenEmptyConfigs pins each configuration read's answer: the
// document (through writeXML, as the handler writes it) or the error body
// (through the one error writer).
func TestGoldenEmptyConfigs(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, tg := range []struct {
		op     Op
		target string
	}{
		{OpGetBucketWebsite, "/bucket?website"},
		{OpGetBucketAccelerateConfiguration, "/bucket?accelerate"},
		{OpGetBucketRequestPayment, "/bucket?requestPayment"},
		{OpGetBucketAnalyticsConfiguration, "/bucket?analytics&id=list1"},
		{OpListBucketAnalyticsConfigurations, "/bucket?analytics"},
		{OpGetBucketInventoryConfiguration, "/bucket?inventory&id=report1"},
		{OpListBucketInventoryConfigurations, "/bucket?inventory&continuation-token=a%26%3Cb"},
		{OpGetBucketMetricsConfiguration, "/bucket?metrics&id=EntireBucket"},
		{OpListBucketMetricsConfigurations, "/bucket?metrics"},
		{OpGetBucketIntelligentTieringConfiguration, "/bucket?intelligent-tiering&id=archive"},
		{OpListBucketIntelligentTieringConfigurations, "/bucket?intelligent-tiering"},
	} {
		t.Run(tg.op.String(), func(t *testing.T) {
			req := &request{Request: httptest.NewRequest("GET", tg.target, nil), id: "0123456789ABCDEF", route: Route{Op: tg.op, Bucket: "bucket"}}
			if got := ParseRoute(req.Request, "").Op; got != tg.op {
				t.Fatalf("GET %s routes to %v", tg.target, got)
			}
			rec := httptest.NewRecorder()
			e := emptyConfigs[tg.op]
			if e.err != nil {
				h.writeError(&statusWriter{ResponseWriter: rec}, req, e.err)
			} else if err := writeXML(rec, http.StatusOK, e.doc(req)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "config-"+tg.op.String(), rec.Body.Bytes())
		})
	}
}

// TestConfigReadsLogNames: the server access log names them as S3 does.
func TestConfigReadsLogNames(t *testing.T) {
	for target, want := range map[string]string{
		"/b?encryption":             "REST.GET.ENCRYPTION",
		"/b?website":                "REST.GET.WEBSITE",
		"/b?replication":            "REST.GET.REPLICATION",
		"/b?accelerate":             "REST.GET.ACCELERATE",
		"/b?requestPayment":         "REST.GET.REQUEST_PAYMENT",
		"/b?notification":           "REST.GET.NOTIFICATION",
		"/b?analytics&id=a":         "REST.GET.ANALYTICS",
		"/b?analytics":              "REST.GET.ANALYTICS",
		"/b?inventory":              "REST.GET.INVENTORY",
		"/b?metrics&id=a":           "REST.GET.METRICS",
		"/b?intelligent-tiering":    "REST.GET.INTELLIGENT_TIERING",
		"/b?intelligent-tiering&id": "REST.GET.INTELLIGENT_TIERING",
	} {
		req := httptest.NewRequest("GET", target, nil)
		rec := &Record{Request: req, Op: ParseRoute(req, "").Op, Bucket: "b"}
		if got := string(AppendLogOperation(nil, rec)); got != want {
			t.Errorf("GET %s logs %s, want %s", target, got, want)
		}
	}
}
