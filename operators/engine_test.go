package operators

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func TestConfigValidate(t *testing.T) {
	f := func(mod func(*Config), wantErr string) {
		t.Helper()
		c := DefaultConfig()
		mod(&c)
		err := c.Validate()
		switch {
		case wantErr == "" && err != nil:
			t.Fatalf("Validate() = %v, want nil", err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("Validate() = %v, want an error containing %q", err, wantErr)
		}
	}
	f(func(*Config) {}, "")
	f(func(c *Config) { c.LatenessCEX = 0 }, "")
	f(func(c *Config) { c.LatenessCEX = -1 }, "LatenessCEX")
	f(func(c *Config) { c.LatenessOnchainDEX = -time.Second }, "LatenessOnchainDEX")
	f(func(c *Config) { c.LatenessSolanaDEX = -time.Second }, "LatenessSolanaDEX")
	f(func(c *Config) { c.MaxFutureSkew = 0 }, "MaxFutureSkew")
}

func TestDefaultConfig(t *testing.T) {
	want := Config{LatenessCEX: 5 * time.Second, LatenessOnchainDEX: 30 * time.Second, LatenessSolanaDEX: 10 * time.Second, MaxFutureSkew: time.Hour}
	if got := DefaultConfig(); got != want {
		t.Fatalf("DefaultConfig() = %+v, want %+v", got, want)
	}
}

func TestNewEngineInvalidConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewEngine with an invalid config did not panic")
		}
	}()
	NewEngine(Config{}, Emit{})
}

// TestValidation checks that invalid and out-of-range trades are rejected
// with their reason and leave no trace.
func TestValidation(t *testing.T) {
	f := func(mod func(*schemas.Trade), wantReason string) {
		t.Helper()
		r := newRecorder()
		e := NewEngine(DefaultConfig(), r.emit())
		x := tr("BTCUSD", "binance", cex, buy, 0, 60000, 1)
		mod(x)
		e.Push(x)
		if len(r.rejects) != 1 || !strings.HasPrefix(r.rejects[0], wantReason) {
			t.Fatalf("rejects %q, want one starting with %q", r.rejects, wantReason)
		}
		if keys := e.DirtyKeys(); len(keys) != 0 {
			t.Fatalf("rejected trade dirtied %q", keys)
		}
	}
	f(func(x *schemas.Trade) { x.Symbol = "" }, "invalid trade: missing symbol")
	f(func(x *schemas.Trade) { x.Price = math.NaN() }, "invalid trade: bad price")
	f(func(x *schemas.Trade) { x.Size = 0 }, "invalid trade: bad size")
	f(func(x *schemas.Trade) { x.NotionalUsd = math.Inf(1) }, "invalid trade: bad notional")
	f(func(x *schemas.Trade) { x.EventTimeNs = 0 }, "invalid trade: absurd timestamp")
	f(func(x *schemas.Trade) { x.VenueKind = 0 }, "invalid trade: bad venue kind")
	f(func(x *schemas.Trade) { x.Side = 7 }, "invalid trade: bad side")
	f(func(x *schemas.Trade) { x.Price = 1e-19 }, "out of range: price")
	f(func(x *schemas.Trade) { x.Price = 1e12 }, "out of range: price")
	f(func(x *schemas.Trade) { x.Size = 2e18 }, "out of range: size")
	f(func(x *schemas.Trade) { x.NotionalUsd = 1.5e15 }, "out of range: notional")
	f(func(x *schemas.Trade) { x.Symbol = PartitionKey }, "out of range: symbol")
}

// outcome pushes trades and returns, per trade, "ok" or the reject reason.
func outcome(cfg Config, trades ...*schemas.Trade) []string {
	e := NewEngine(cfg, Emit{})
	var out []string
	for _, x := range trades {
		reason := "ok"
		e.emit.Reject = func(_ *schemas.Trade, r string) { reason = r }
		e.Push(x)
		out = append(out, reason)
	}
	return out
}

func TestLateness(t *testing.T) {
	f := func(trades []*schemas.Trade, want ...string) {
		t.Helper()
		if got := outcome(DefaultConfig(), trades...); !slices.Equal(got, want) {
			t.Fatalf("outcomes %q, want %q", got, want)
		}
	}
	s := time.Second
	c := func(off time.Duration) *schemas.Trade { return tr("A", "binance", cex, buy, off, 1, 1) }
	o := func(off time.Duration) *schemas.Trade { return tr("A", "uniswap", evm, buy, off, 1, 1) }
	so := func(off time.Duration) *schemas.Trade { return tr("B", "raydium", solana, buy, off, 1, 1) }
	// CEX: 5s. W = 10s-5s = 5s: 5s is on time, 4.999s is late.
	f([]*schemas.Trade{c(10 * s), c(5 * s), c(5*s - 1)}, "ok", "ok", ReasonLate)
	// The watermark only moves forward.
	f([]*schemas.Trade{c(10 * s), c(7 * s), c(6 * s), c(4 * s)}, "ok", "ok", "ok", ReasonLate)
	// EVM DEX: 30s; Solana DEX: 10s.
	f([]*schemas.Trade{o(60 * s), o(30 * s), o(29 * s)}, "ok", "ok", ReasonLate)
	f([]*schemas.Trade{so(60 * s), so(50 * s), so(49 * s)}, "ok", "ok", ReasonLate)
	// Watermarks are per venue kind: a CEX trade far ahead does not make
	// the first EVM trades late, nor a lagging EVM source late later.
	f([]*schemas.Trade{c(100 * s), o(10 * s), o(40 * s), o(11 * s), o(9 * s)}, "ok", "ok", "ok", "ok", ReasonLate)
	// Late trades do not move the watermark.
	f([]*schemas.Trade{c(10 * s), c(1 * s), c(5 * s)}, "ok", ReasonLate, "ok")
	// Zero lateness.
	cfg := DefaultConfig()
	cfg.LatenessCEX = 0
	c2 := tr("A", "binance", cex, buy, 10*s, 2, 1) // same time, another trade
	if got := outcome(cfg, c(10*s), c2, c(10*s-1)); !slices.Equal(got, []string{"ok", "ok", ReasonLate}) {
		t.Fatalf("zero lateness: %q", got)
	}
}

func TestFutureSkew(t *testing.T) {
	f := func(trades []*schemas.Trade, want ...string) {
		t.Helper()
		if got := outcome(DefaultConfig(), trades...); !slices.Equal(got, want) {
			t.Fatalf("outcomes %q, want %q", got, want)
		}
	}
	c := func(off time.Duration) *schemas.Trade { return tr("A", "binance", cex, buy, off, 1, 1) }
	o := func(off time.Duration) *schemas.Trade { return tr("B", "uniswap", evm, buy, off, 1, 1) }
	h := time.Hour
	// Not applied to the first trade.
	f([]*schemas.Trade{c(100 * h), c(100*h + h), c(100*h + 2*h + 1)}, "ok", "ok", ReasonFuture)
	// Measured from the partition's newest accepted event time, any kind.
	f([]*schemas.Trade{c(0), o(h + 1)}, "ok", ReasonFuture)
	f([]*schemas.Trade{c(0), o(h), c(2 * h)}, "ok", "ok", "ok")
	// A rejected future trade does not move the clock.
	f([]*schemas.Trade{c(0), c(2 * h), c(h)}, "ok", ReasonFuture, "ok")
}

func TestDedupe(t *testing.T) {
	f := func(trades []*schemas.Trade, want ...string) {
		t.Helper()
		if got := outcome(DefaultConfig(), trades...); !slices.Equal(got, want) {
			t.Fatalf("outcomes %q, want %q", got, want)
		}
	}
	with := func(venue, id string, log uint32, off time.Duration, sym string) *schemas.Trade {
		x := tr(sym, venue, evm, buy, off, 1, 1)
		x.TradeId, x.LogIndex = id, log
		return x
	}
	s := time.Second
	// Same venue, id and log index: duplicate, even with other values.
	f([]*schemas.Trade{with("u", "0x1", 3, 0, "A"), with("u", "0x1", 3, s, "A")}, "ok", ReasonDuplicate)
	// Another log index, venue or symbol: not a duplicate.
	f([]*schemas.Trade{with("u", "0x1", 3, 0, "A"), with("u", "0x1", 4, 0, "A"), with("v", "0x1", 3, 0, "A"), with("u", "0x1", 3, 0, "B")},
		"ok", "ok", "ok", "ok")
	// Key bytes are separated: ("ab","c") is not ("a","bc").
	f([]*schemas.Trade{with("ab", "c", 0, 0, "A"), with("a", "bc", 0, 0, "A")}, "ok", "ok")
	// A duplicate within the horizon is caught however late it arrives,
	// up to the lateness of its kind; beyond, it is late.
	f([]*schemas.Trade{with("u", "0x1", 0, 0, "A"), with("u", "0x2", 0, 30*s, "A"), with("u", "0x1", 0, 0, "A"),
		with("u", "0x3", 0, 31*s, "A"), with("u", "0x1", 0, 0, "A")},
		"ok", "ok", ReasonDuplicate, "ok", ReasonLate)
}

// TestDedupeExpiry checks that keys older than the watermark minus a minute
// are forgotten, per venue kind.
func TestDedupeExpiry(t *testing.T) {
	e := NewEngine(DefaultConfig(), Emit{})
	keys := func() int { return e.symbols["A"].dedupe.len() }
	f := func(x *schemas.Trade, want int) {
		t.Helper()
		e.Push(x)
		if got := keys(); got != want {
			t.Fatalf("after trade at %s: %d keys, want %d", time.Duration(x.EventTimeNs-testBase), got, want)
		}
	}
	s := time.Second
	f(tr("A", "b", cex, buy, 0, 1, 1), 1)
	f(tr("A", "b", cex, buy, s, 1, 1), 2)
	f(tr("A", "u", evm, buy, 0, 1, 1), 3)
	// Each push first forgets the keys of its kind older than W-1m, with W
	// the watermark before the push. Here W_cex = -4s: nothing.
	f(tr("A", "b", cex, buy, 65*s, 1, 1), 4)
	// W_cex = 60s, horizon 0s: the key at 0s is not older.
	f(tr("A", "b", cex, buy, 70500*time.Millisecond, 1, 1), 5)
	// W_cex = 65.5s, horizon 5.5s: the CEX keys at 0s and 1s go; the EVM
	// key at 0s stays, its kind's watermark has not moved.
	f(tr("A", "b", cex, buy, 80*s, 1, 1), 4)
	// W_cex = 75s, horizon 15s: nothing.
	f(tr("A", "b", cex, buy, 200*s, 1, 1), 5)
	// W_cex = 195s, horizon 135s: the keys at 65s, 70.5s and 80s go.
	f(tr("A", "b", cex, buy, 201*s, 1, 1), 3)
	// W_evm = -30s: nothing; then W_evm = 170s: the EVM key at 0s goes.
	f(tr("A", "u", evm, buy, 200*s, 1, 1), 4)
	f(tr("A", "u", evm, buy, 200*s+1, 1, 1), 4)
}

// TestHashSet checks the set against a map over random adds and removes.
func TestHashSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s hashSet
	m := map[uint64]bool{}
	for i := range 200_000 {
		// Small key space: many collisions of home slots and re-adds.
		h := uint64(rng.IntN(5000)) + 1
		if i%7 == 0 {
			h = uint64(rng.IntN(50))<<58 | 1 // same low bits
		}
		switch rng.IntN(3) {
		case 0, 1:
			if got := s.add(h); got != !m[h] {
				t.Fatalf("add(%d) = %v with present=%v", h, got, m[h])
			}
			m[h] = true
		case 2:
			s.remove(h)
			delete(m, h)
		}
		if s.n != len(m) {
			t.Fatalf("n = %d, want %d", s.n, len(m))
		}
	}
	for h := range m {
		if !s.has(h) {
			t.Fatalf("lost %d", h)
		}
	}
	for h := uint64(1); h < 6000; h++ {
		if s.has(h) != m[h] {
			t.Fatalf("has(%d) = %v", h, s.has(h))
		}
	}
}

func TestFNV1a(t *testing.T) {
	f := func(in string, want uint64) {
		t.Helper()
		if got := fnv1a([]byte(in)); got != want {
			t.Fatalf("fnv1a(%q) = %#x, want %#x", in, got, want)
		}
	}
	// Reference values of 64-bit FNV-1a.
	f("", 0xcbf29ce484222325)
	f("a", 0xaf63dc4c8601ec8c)
	f("foobar", 0x85944171f73967e8)
}

// TestTradeKeyHash checks that the dedupe hash is FNV-1a of
// schemas.DedupeKey.
func TestTradeKeyHash(t *testing.T) {
	f := func(venue, id string, log uint32) {
		t.Helper()
		x := &schemas.Trade{Venue: venue, TradeId: id, LogIndex: log}
		if got, want := tradeKeyHash(x), fnv1a(schemas.DedupeKey(nil, x)); got != want {
			t.Fatalf("tradeKeyHash(%q, %q, %d) = %#x, want %#x", venue, id, log, got, want)
		}
	}
	f("", "", 0)
	f("binance", "123456789", 0)
	f("uniswap_v3", "0xdeadbeef", 7)
	f("u", "x", 10)
	f("u", "x", 4294967295)
	f("ü", "\x00", 99)
}

// TestPushAllocs checks that Push allocates nothing once symbols are known.
func TestPushAllocs(t *testing.T) {
	trades := genTrades(genOptions{seed: 5, n: 40_000, symbols: 20, step: time.Millisecond})
	e := NewEngine(DefaultConfig(), Emit{})
	for _, x := range trades {
		e.Push(x)
	}
	span := int64(len(trades)) * int64(time.Millisecond)
	times := make([]int64, len(trades))
	for i, x := range trades {
		times[i] = x.EventTimeNs
	}
	shift, i := span, 0
	allocs := testing.AllocsPerRun(len(trades)-1, func() {
		x := trades[i]
		x.EventTimeNs = times[i] + shift
		e.Push(x)
		i++
	})
	if allocs != 0 {
		t.Fatalf("Push allocates %v times per trade", allocs)
	}
}
