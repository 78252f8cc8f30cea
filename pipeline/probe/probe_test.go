package probe

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestProbes(t *testing.T) {
	s := New()
	views := make(chan struct{})
	s.Ready("views", Closed(views, "views are being rebuilt"))
	var behind atomic.Bool
	behind.Store(true)
	s.Ready("lag", func(context.Context) error {
		if behind.Load() {
			return errors.New("consumer group g is 12 records behind")
		}
		return nil
	})
	s.Registry().MustRegister(Counters("mi_test_total", "Test counters.", "kind", func() map[string]uint64 { return map[string]uint64{"a": 3} }))
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	f := func(path string, status int, contains ...string) {
		t.Helper()
		got, body := get(path)
		if got != status {
			t.Errorf("GET %s: %d, want %d: %s", path, got, status, body)
		}
		for _, c := range contains {
			if !strings.Contains(body, c) {
				t.Errorf("GET %s: body lacks %q: %s", path, c, body)
			}
		}
	}
	f("/healthz", 200, `"status":"ok"`)
	f("/readyz", 503, `"not ready"`, `"views":"views are being rebuilt"`, `"lag":"consumer group g is 12 records behind"`)
	f("/metrics", 200, "mi_ready 0", `mi_test_total{kind="a"} 3`, "go_goroutines")
	close(views)
	behind.Store(false)
	f("/readyz", 503, "views") // evaluated at most once a second
	time.Sleep(1100 * time.Millisecond)
	f("/readyz", 200, `"status":"ready"`)
	f("/metrics", 200, "mi_ready 1")
}
