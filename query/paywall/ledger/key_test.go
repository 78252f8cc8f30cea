package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestKeys(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k, err := NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormedKey(k) || seen[k] || HashKey(k) == k || len(HashKey(k)) != 64 {
			t.Fatalf("key %q", k)
		}
		seen[k] = true
	}
	f := func(k string, want bool) {
		t.Helper()
		if got := WellFormedKey(k); got != want {
			t.Errorf("WellFormedKey(%q) = %v, want %v", k, got, want)
		}
	}
	f(KeyPrefix+strings.Repeat("a", 64), true)
	f(KeyPrefix+strings.Repeat("A", 64), false)
	f(KeyPrefix+strings.Repeat("a", 63), false)
	f(KeyPrefix+strings.Repeat("a", 65), false)
	f("mi_test_"+strings.Repeat("a", 64), false)
	f("", false)
}

// FuzzWellFormedKey: X-API-Key is outside input; the check never panics and
// accepts only the prefix plus 64 lower-case hex digits.
func FuzzWellFormedKey(f *testing.F) {
	f.Add(KeyPrefix + strings.Repeat("0", 64))
	f.Add("mi_live_")
	f.Add("")
	f.Add(KeyPrefix + strings.Repeat("g", 64))
	f.Fuzz(func(t *testing.T, k string) {
		if WellFormedKey(k) {
			rest := strings.TrimPrefix(k, KeyPrefix)
			if len(k) != len(KeyPrefix)+64 || strings.Trim(rest, "0123456789abcdef") != "" {
				t.Fatalf("accepted %q", k)
			}
		}
		_ = HashKey(k)
	})
}

func TestConformancePruneExpired(t *testing.T) {
	conformance(t, func(t *testing.T, s *SQL, _ func() *SQL) {
		ctx := context.Background()
		now := time.Now()
		if err := s.ReserveNonce(ctx, "eip155:8453", "0x1", "0xold", now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.ReserveNonce(ctx, "eip155:8453", "0x1", "0xnew", now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.ReserveProof(ctx, "old", now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		n, err := s.PruneExpired(ctx, now)
		if err != nil || n != 2 {
			t.Fatalf("pruned %d, %v; want 2", n, err)
		}
		if err := s.ReserveNonce(ctx, "eip155:8453", "0x1", "0xnew", now.Add(time.Hour)); !errors.Is(err, ErrNonceUsed) {
			t.Fatalf("unexpired nonce after prune: %v", err)
		}
	})
}
