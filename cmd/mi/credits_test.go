package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/marketintel/mi/query/paywall/ledger"
)

func TestCreditsGrantAndBalance(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var out bytes.Buffer
	if err := runCredits(ctx, []string{"grant", "--amount", "2.5", "--data-dir", dir}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	key := lines[len(lines)-1]
	if !ledger.WellFormedKey(key) || !strings.HasSuffix(out.String(), key+"\n") {
		t.Fatalf("the last line is not the key:\n%s", out.String())
	}
	out.Reset()
	if err := runCredits(ctx, []string{"balance", key, "--data-dir", dir}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "balance 2.5 USD (2500000 micro-USD)") {
		t.Fatalf("balance output %q", out.String())
	}
	out.Reset()
	if err := runCredits(ctx, []string{"balance", "--database-url", ledger.DefaultURL(dir), key}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2500000 micro-USD") {
		t.Fatalf("balance output %q", out.String())
	}
	f := func(args ...string) {
		t.Helper()
		if err := runCredits(ctx, append(args, "--data-dir", dir), &out); err == nil {
			t.Errorf("mi credits %v succeeded", args)
		}
	}
	f("grant", "--amount", "0")
	f("grant", "--amount", "-1")
	f("grant", "--amount", "1.0000001")
	f("grant", "--amount", "1e3")
	f("grant")
	f("balance", "mi_live_unknown")
	f("balance")
	f("refund")
}
