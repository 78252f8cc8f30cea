package pubreplay

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
)

func start(t *testing.T, routes []Route, opts ...Option) (*Server, string) {
	t.Helper()
	s, err := New(routes, opts...)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return s, l.URL
}

func get(t *testing.T, req *http.Request) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestServesRealFileAtPublisherPath(t *testing.T) {
	file := fixtures.Path(t, "rates/nyfed_sofr_search_2024-06-01_2024-06-06.json")
	want, _ := os.ReadFile(file)
	s, base := start(t, []Route{{Path: "/api/rates/secured/sofr/search.json", Query: url.Values{"startDate": {"2024-06-01"}}, File: file}})

	req, _ := http.NewRequest("GET", base+"/api/rates/secured/sofr/search.json?startDate=2024-06-01&endDate=2024-06-06", nil)
	resp, body, err := get(t, req)
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("status %d err %v, body equal %v", resp.StatusCode, err, bytes.Equal(body, want))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	// A query the route does not hold answers 404 and is listed as a miss.
	req, _ = http.NewRequest("GET", base+"/api/rates/secured/sofr/search.json?startDate=2020-01-01", nil)
	if resp, _, _ := get(t, req); resp.StatusCode != 404 {
		t.Errorf("unmatched query: status %d, want 404", resp.StatusCode)
	}
	if m := s.Misses(); len(m) != 1 || !strings.Contains(m[0], "startDate=2020-01-01") {
		t.Errorf("misses %v", m)
	}
	if n := s.Requests("/api/rates/secured/sofr/search.json"); n != 2 {
		t.Errorf("requests %d, want 2", n)
	}
}

func TestConditionalRequests(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	_, base := start(t, []Route{{Path: "/feed", Body: []byte("<rss/>"), ContentType: "application/rss+xml"}}, LastModified(mod))
	req, _ := http.NewRequest("GET", base+"/feed", nil)
	resp, _, _ := get(t, req)
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Last-Modified") != mod.Format(http.TimeFormat) {
		t.Fatalf("validators: ETag %q Last-Modified %q", etag, resp.Header.Get("Last-Modified"))
	}
	f := func(name string, hdr map[string]string, want int) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+"/feed", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, body, _ := get(t, req)
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, want)
		}
		if want == 304 && len(body) != 0 {
			t.Errorf("%s: 304 with a body", name)
		}
	}
	f("etag", map[string]string{"If-None-Match": etag}, 304)
	f("weak etag in a list", map[string]string{"If-None-Match": `"x", W/` + etag}, 304)
	f("star", map[string]string{"If-None-Match": "*"}, 304)
	f("other etag", map[string]string{"If-None-Match": `"nope"`}, 200)
	f("other etag wins over date", map[string]string{"If-None-Match": `"nope"`, "If-Modified-Since": mod.Format(http.TimeFormat)}, 200)
	f("same date", map[string]string{"If-Modified-Since": mod.Format(http.TimeFormat)}, 304)
	f("later date", map[string]string{"If-Modified-Since": mod.Add(time.Hour).Format(http.TimeFormat)}, 304)
	f("earlier date", map[string]string{"If-Modified-Since": mod.Add(-time.Second).Format(http.TimeFormat)}, 200)
	f("bad date", map[string]string{"If-Modified-Since": "yesterday"}, 200)
}

func TestFaults(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 100)
	s, base := start(t, []Route{{Path: "/x", Body: body}})
	s.Inject("/x", Fault{Status: 429, RetryAfter: "7", Body: []byte("<html>slow down</html>"), Times: 2})
	s.Inject("/x", Fault{Truncate: 10})
	req, _ := http.NewRequest("GET", base+"/x", nil)
	for i := 0; i < 2; i++ {
		resp, b, _ := get(t, req)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" || string(b) != "<html>slow down</html>" {
			t.Fatalf("answer %d: status %d Retry-After %q body %q", i, resp.StatusCode, resp.Header.Get("Retry-After"), b)
		}
	}
	resp, b, err := get(t, req)
	if err == nil || len(b) != 10 || resp.ContentLength != int64(len(body)) {
		t.Fatalf("truncated answer: err %v, %d bytes of %d announced", err, len(b), resp.ContentLength)
	}
	resp, b, err = get(t, req)
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(b, body) {
		t.Fatalf("after the faults: status %d err %v", resp.StatusCode, err)
	}
	if n := s.Requests("/x"); n != 4 {
		t.Errorf("requests %d, want 4", n)
	}
}

func TestPostBodyMatchAndGzipFile(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "meta.json.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(`{"universe":[]}`))
	zw.Close()
	os.WriteFile(gz, buf.Bytes(), 0o644)
	_, base := start(t, []Route{
		{Method: "POST", Path: "/info", BodyContains: `"type":"meta"`, File: gz},
		{Method: "POST", Path: "/info", Body: []byte(`{"default":true}`)},
	})
	f := func(reqBody, want string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/info", strings.NewReader(reqBody))
		resp, b, _ := get(t, req)
		if resp.StatusCode != 200 || string(b) != want {
			t.Errorf("POST %s: status %d body %q, want %q", reqBody, resp.StatusCode, b, want)
		}
	}
	f(`{"type":"meta"}`, `{"universe":[]}`)
	f(`{"type":"allMids"}`, `{"default":true}`)
}

func TestNewRefusesBadRoutes(t *testing.T) {
	f := func(r Route) {
		t.Helper()
		if _, err := New([]Route{r}); err == nil {
			t.Errorf("route %+v accepted", r)
		}
	}
	f(Route{Path: "x", Body: []byte("a")})
	f(Route{Path: "/x"})
	f(Route{Path: "/x", Body: []byte("a"), File: "b"})
	f(Route{Path: "/x", File: filepath.Join(t.TempDir(), "missing.json")})
}
