package chain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// TestBlockAt builds a chain with uneven block times (runs of 1 s blocks
// separated by jumps of minutes and hours) and checks BlockAt against a
// scan of every header, for times before, on, between and after blocks.
func TestBlockAt(t *testing.T) {
	ch := chaintest.New(t)
	for i, jump := range []time.Duration{0, 90 * time.Second, 2 * time.Hour, 0, 7 * time.Minute, 30 * time.Second} {
		if jump > 0 {
			if err := ch.Backend.AdjustTime(jump); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 + 7*i {
			ch.Backend.Commit()
		}
	}
	c := client(t, ch, "sim", nil, nil)
	ctx := context.Background()
	head, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nums := make([]uint64, head+1)
	for i := range nums {
		nums[i] = uint64(i)
	}
	hs, err := c.Headers(ctx, nums)
	if err != nil {
		t.Fatal(err)
	}
	// want is the first block at or after ts by a scan.
	want := func(ts int64) uint64 {
		for _, h := range hs {
			if int64(h.Time) >= ts {
				return h.Number
			}
		}
		return head + 1
	}
	f := func(ts int64) {
		t.Helper()
		got, _, err := c.BlockAt(ctx, time.Unix(ts, 0))
		if err != nil {
			t.Fatalf("BlockAt(%d): %v", ts, err)
		}
		if w := want(ts); got != w {
			t.Fatalf("BlockAt(%d) = %d, want %d", ts, got, w)
		}
	}
	for _, h := range hs {
		f(int64(h.Time) - 1)
		f(int64(h.Time))
		f(int64(h.Time) + 1)
	}
	last := int64(hs[len(hs)-1].Time)
	f(last - 3600) // "an hour ago"
	f(last - 1800)
	f(last + 3600) // the future: head + 1
	f(0)           // before genesis
}

// TestBlockAtReads checks that an hour back on a chain of steady block
// times is found in a handful of header reads.
func TestBlockAtReads(t *testing.T) {
	ch := chaintest.New(t)
	// 600 blocks 12 s apart.
	for range 600 {
		if err := ch.Backend.AdjustTime(12 * time.Second); err != nil {
			t.Fatal(err)
		}
	}
	c := client(t, ch, "sim", nil, nil)
	ctx := context.Background()
	h, err := c.Header(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch.ResetCounts()
	n, _, err := c.BlockAt(ctx, time.Unix(int64(h.Time)-3600, 0))
	if err != nil {
		t.Fatal(err)
	}
	if h.Number-n < 290 || h.Number-n > 310 {
		t.Fatalf("an hour back from %d is %d", h.Number, n)
	}
	if reads := ch.Calls("eth_getBlockByNumber"); reads > 6 {
		t.Fatalf("%d header reads", reads)
	}
}

// TestVerify: an entry whose chain_id matches the endpoint is used; one
// that does not is refused with ErrWrongChain and shows as failing.
func TestVerify(t *testing.T) {
	ch := chaintest.New(t)
	ctx := context.Background()
	reg := sources.NewRegistry(nil, nil)
	mk := func(name string, id uint64) *chain.Client {
		cfg := ch.Config(name)
		cfg.ChainID = id
		c, err := chain.New(cfg, chain.Options{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	good, bad, none := mk("good", chaintest.ChainID), mk("base", 8453), mk("none", 0)
	if err := good.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	ch.ResetCounts()
	if err := good.Verify(ctx); err != nil || ch.Calls("eth_chainId") != 0 {
		t.Fatalf("second Verify: %v, %d calls", err, ch.Calls("eth_chainId"))
	}
	err := bad.Verify(ctx)
	if !errors.Is(err, chain.ErrWrongChain) {
		t.Fatalf("wrong chain: %v", err)
	}
	if want := "eth_chainId answers 1337, the entry's chain_id is 8453"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	if err := none.Verify(ctx); err != nil || ch.Calls("eth_chainId") != 1 {
		t.Fatalf("unchecked entry: %v, %d calls", err, ch.Calls("eth_chainId"))
	}
	var state string
	for _, s := range reg.Snapshot() {
		if s.Name == "chain:base" {
			state = s.State
		}
	}
	if state != "failing" {
		t.Fatalf("chain:base state %q", state)
	}
}
