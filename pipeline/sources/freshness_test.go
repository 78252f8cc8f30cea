package sources

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources/clock"
)

func TestRedact(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := Redact(in); got != want {
			t.Fatalf("Redact(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	f("https://data.sec.gov/submissions/CIK0000320193.json", "https://data.sec.gov/submissions/CIK0000320193.json")
	f("https://eth-mainnet.g.alchemy.com/v2/abcDEF123456789012345678", "https://eth-mainnet.g.alchemy.com/v2/REDACTED")
	f("https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef", "https://mainnet.infura.io/v3/REDACTED")
	f(`Post "https://user:pw@rpc.example.com/?apikey=s3cret&chain=1": dial tcp: refused`, `Post "https://REDACTED@rpc.example.com/?apikey=REDACTED&chain=1": dial tcp: refused`)
	f("cannot get https://fapi.binance.com/fapi/v1/openInterest?symbol=BTCUSDT: EOF", "cannot get https://fapi.binance.com/fapi/v1/openInterest?symbol=BTCUSDT: EOF")
	f("wss://base-rpc.publicnode.com", "wss://base-rpc.publicnode.com")
	f("see https://x.example/a?token=t, then retry.", "see https://x.example/a?token=REDACTED, then retry.")
	f("no url here", "no url here")
	f("https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm", "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm")
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{"https://a.b/v2/abcDEF123456789012345678?key=1", "http://[::1", "x://%zz", "https://u:p@h/p?token=a&token=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Redact(s)
		if u := Redact("https://rpc.example/x?key=" + s); strings.Contains(u, "key=") && !strings.Contains(u, "key=REDACTED") {
			t.Fatalf("key kept: %q", u)
		}
		if !strings.Contains(s, "://") && r != s {
			t.Fatalf("Redact changed text without a URL: %q -> %q", s, r)
		}
	})
}

func TestHealth(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	var logs bytes.Buffer
	reg := NewRegistry(slog.New(slog.NewTextHandler(&logs, nil)), fc)
	b := reg.Register("chain:base", "chain", "https://base.example/v2/abcDEF123456789012345678")
	a := reg.Register("chain:arbitrum", "chain", "https://arb.example")
	if reg.Register("chain:base", "chain", "https://base.example") != b {
		t.Fatal("Register made a second Health for one name")
	}
	snap := reg.Snapshot()
	if len(snap) != 2 || snap[0].Name != "chain:arbitrum" || snap[0].State != "starting" || !snap[0].Stale {
		t.Fatalf("initial snapshot %+v", snap)
	}
	a.SetMaxAge(time.Minute)
	a.Attempt()
	a.Success(time.Date(2026, 3, 2, 9, 59, 48, 0, time.UTC))
	b.Attempt()
	b.Failure(errors.New("dial tcp: connection refused"))
	fc.Advance(30 * time.Second)
	b.Failure(errors.New("timeout"))
	snap = reg.Snapshot()
	if s := snap[0]; s.State != "ok" || s.Stale || s.Age != 30*time.Second || s.DataAge != 42*time.Second {
		t.Fatalf("arbitrum %+v", s)
	}
	if s := snap[1]; s.State != "failing" || !s.Stale || s.ConsecutiveFailures != 2 || s.LastError != "timeout" || s.Age != 0 {
		t.Fatalf("base %+v", s)
	}
	fc.Advance(31 * time.Second) // arbitrum's success is now older than MaxAge
	if s := a.Snapshot(); !s.Stale || s.State != "ok" {
		t.Fatalf("arbitrum past MaxAge: %+v", s)
	}
	b.Success(time.Time{})
	a.Success(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)) // older data time: LastData keeps the newest
	if s := a.Snapshot(); !s.LastData.Equal(time.Date(2026, 3, 2, 9, 59, 48, 0, time.UTC)) {
		t.Fatalf("LastData went back: %v", s.LastData)
	}
	out := logs.String()
	if strings.Count(out, "source unreachable") != 1 || strings.Count(out, "source recovered") != 1 || strings.Contains(out, "down_for") {
		t.Fatalf("logs:\n%s", out)
	}
	if strings.Contains(out, "abcDEF123456789012345678") {
		t.Fatalf("secret logged:\n%s", out)
	}
}
