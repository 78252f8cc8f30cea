package operators

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// restoreTrades is a sequence exercising every rule over ~12 minutes.
func restoreTrades() []*schemas.Trade {
	return genTrades(genOptions{seed: 7, n: 6000, symbols: 8, step: 120 * time.Millisecond, dupEvery: 37, oddEvery: 53})
}

// TestRestoreEquivalence checkpoints an engine like the runner does (dirty
// keys into a compacted changelog at irregular intervals), restores the
// changelog as of many cut points into fresh engines, and checks that each
// continues with exactly the output of the original, byte for byte.
func TestRestoreEquivalence(t *testing.T) {
	const cutPoints = 40
	f := func(cfg Config, trades []*schemas.Trade, seed uint64) {
		t.Helper()
		type cut struct {
			pushed, emitted int
			log             map[string][]byte
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		orig := newRecorder()
		orig.binOnly = true
		e := NewEngine(cfg, orig.emit())
		changelog := map[string][]byte{}
		var cuts []cut
		next := 0
		for i, tr := range trades {
			if i == next {
				for _, k := range e.DirtyKeys() {
					changelog[k] = e.AppendState(nil, k)
				}
				e.ClearDirty()
				if len(e.DirtyKeys()) != 0 {
					t.Fatalf("dirty keys after ClearDirty: %q", e.DirtyKeys())
				}
				cuts = append(cuts, cut{pushed: i, emitted: len(orig.bin), log: maps.Clone(changelog)})
				next += 1 + rng.IntN(2*len(trades)/cutPoints)
			}
			e.Push(tr)
		}
		if len(cuts) < cutPoints/2 {
			t.Fatalf("only %d cut points", len(cuts))
		}
		for _, c := range cuts {
			r := newRecorder()
			r.binOnly = true
			e2 := NewEngine(cfg, r.emit())
			// Restore in a random order: the order must not matter.
			keys := slices.Collect(maps.Keys(c.log))
			rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			for _, k := range keys {
				if err := e2.RestoreState(k, c.log[k]); err != nil {
					t.Fatalf("cut at %d: cannot restore %q: %v", c.pushed, k, err)
				}
			}
			// Encoding the restored state gives back the same bytes.
			for _, k := range keys {
				if got := e2.AppendState(nil, k); !bytes.Equal(got, c.log[k]) {
					t.Fatalf("cut at %d: state of %q does not round-trip", c.pushed, k)
				}
			}
			if len(e2.DirtyKeys()) != 0 {
				t.Fatalf("cut at %d: restore left dirty keys %q", c.pushed, e2.DirtyKeys())
			}
			for _, tr := range trades[c.pushed:] {
				e2.Push(tr)
			}
			want := orig.bin[c.emitted:]
			if len(r.bin) != len(want) {
				t.Fatalf("cut at %d: restored engine emitted %d records, original %d", c.pushed, len(r.bin), len(want))
			}
			for i := range want {
				if !bytes.Equal(r.bin[i], want[i]) {
					t.Fatalf("cut at %d: record %d differs:\ngot  %x\nwant %x", c.pushed, i, r.bin[i], want[i])
				}
			}
		}
	}
	f(DefaultConfig(), restoreTrades(), 1)
	// No lateness at all, and a short future skew.
	cfg := DefaultConfig()
	cfg.LatenessCEX, cfg.LatenessOnchainDEX, cfg.LatenessSolanaDEX, cfg.MaxFutureSkew = 0, 0, 0, time.Minute
	f(cfg, restoreTrades(), 2)
	// Long lateness: several open candles per series.
	cfg = DefaultConfig()
	cfg.LatenessOnchainDEX = 150 * time.Second
	f(cfg, restoreTrades(), 3)
	// Long and sparse: baselines of 1m and 5m become ready, signals change.
	f(DefaultConfig(), genTrades(genOptions{seed: 9, n: 5000, symbols: 3, step: 800 * time.Millisecond, dupEvery: 37, oddEvery: 53}), 4)
}

// TestDeterminism checks that two engines fed the same sequence emit the
// same bytes, and that the sequence exercises every kind of output.
func TestDeterminism(t *testing.T) {
	trades := restoreTrades()
	a := run(t, DefaultConfig(), testBase, trades)
	b := run(t, DefaultConfig(), testBase, trades)
	if len(a.bin) != len(b.bin) {
		t.Fatalf("runs emitted %d and %d records", len(a.bin), len(b.bin))
	}
	for i := range a.bin {
		if !bytes.Equal(a.bin[i], b.bin[i]) {
			t.Fatalf("record %d differs:\n%s\n%s", i, a.lines[i], b.lines[i])
		}
	}
	reasons := map[string]int{}
	for _, r := range a.rejects {
		reasons[reasonPhrase(r)]++
	}
	for _, want := range []string{ReasonLate, ReasonDuplicate, ReasonFuture, ReasonOutOfRange, "invalid trade"} {
		if reasons[want] == 0 {
			t.Errorf("sequence has no %q rejection: %v", want, reasons)
		}
	}
	if len(a.candles) < 100 || len(a.docs) < 1000 {
		t.Errorf("sequence emitted only %d candles and %d documents", len(a.candles), len(a.docs))
	}
}

// reasonPhrase returns the stable phrase a reject reason starts with.
func reasonPhrase(r string) string {
	for _, p := range []string{ReasonLate, ReasonDuplicate, ReasonFuture, ReasonOutOfRange, "invalid trade"} {
		if len(r) >= len(p) && r[:len(p)] == p {
			return p
		}
	}
	return r
}

// TestRestoreStateErrors checks that corrupt data is refused and leaves the
// engine as it was.
func TestRestoreStateErrors(t *testing.T) {
	e := NewEngine(DefaultConfig(), Emit{})
	for _, tr := range restoreTrades()[:2000] {
		e.Push(tr)
	}
	keys := e.DirtyKeys()
	states := map[string][]byte{}
	for _, k := range keys {
		states[k] = e.AppendState(nil, k)
	}

	// One engine serves every case: a failed restore must leave it as it was.
	e2 := NewEngine(DefaultConfig(), Emit{})
	for k, v := range states {
		if err := e2.RestoreState(k, v); err != nil {
			t.Fatalf("cannot restore %q: %v", k, err)
		}
	}
	f := func(key string, data []byte) {
		t.Helper()
		err := e2.RestoreState(key, data)
		if !errors.Is(err, ErrCorruptState) {
			t.Fatalf("RestoreState(%q, %x) = %v, want ErrCorruptState", key, data, err)
		}
		if key == "" {
			return
		}
		if got := e2.AppendState(nil, key); !bytes.Equal(got, states[key]) {
			t.Fatalf("failed restore of %q changed its state", key)
		}
	}
	sym := keys[0]
	f(sym, nil)
	f(sym, []byte{})
	f(sym, []byte{2})                                    // unknown version
	f(PartitionKey, []byte{stateVersion, 0xff, 0xff, 1}) // unknown flags
	f(PartitionKey, append(slices.Clone(states[PartitionKey]), 0))
	f(sym, append(slices.Clone(states[sym]), 0)) // trailing byte
	f(sym, states[sym][:len(states[sym])-1])     // truncated
	f(sym, states[sym][:len(states[sym])/2])
	f("", states[sym])
	// Truncations of a symbol state (all short ones, then a sample) and
	// of the partition state are refused.
	for n := 0; n < len(states[sym]); n += 1 + n/256 {
		f(sym, states[sym][:n])
	}
	for n := range len(states[PartitionKey]) {
		f(PartitionKey, states[PartitionKey][:n])
	}
}

// TestAppendStateUnknownKey checks the documented panic.
func TestAppendStateUnknownKey(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("AppendState of an unknown key did not panic")
		}
	}()
	NewEngine(DefaultConfig(), Emit{}).AppendState(nil, "NOPE")
}

// TestDirtyKeys checks which keys a push dirties and their order.
func TestDirtyKeys(t *testing.T) {
	e := NewEngine(DefaultConfig(), Emit{})
	f := func(tr *schemas.Trade, want ...string) {
		t.Helper()
		e.ClearDirty()
		e.Push(tr)
		if got := e.DirtyKeys(); !slices.Equal(got, want) {
			t.Fatalf("DirtyKeys() = %q, want %q", got, want)
		}
	}
	f(tr("ETHUSD", "binance", cex, buy, 0, 3000, 1), "ETHUSD", PartitionKey)
	f(tr("BTCUSD", "binance", cex, buy, 100*time.Millisecond, 60000, 1), "BTCUSD", PartitionKey)
	// Crossing a second clears the touched flags of both symbols.
	f(tr("BTCUSD", "binance", cex, buy, 1100*time.Millisecond, 60000, 1), "BTCUSD", "ETHUSD", PartitionKey)
	// A duplicate is counted in its symbol's quality; the partition is untouched.
	f(tr("BTCUSD", "binance", cex, buy, 1100*time.Millisecond, 60000, 1), "BTCUSD")
	// An invalid trade changes nothing.
	f(&schemas.Trade{Symbol: "BTCUSD"})
	// A late trade of a symbol never accepted changes nothing.
	f(tr("XRPUSD", "binance", cex, buy, -time.Minute, 1, 1))
}

// TestStateSize bounds the encoded size of window state, so that a change
// that bloats the checkpoint shows up: a symbol that traded in every bucket
// of every window, and a quiet symbol with one trade.
func TestStateSize(t *testing.T) {
	_, busy := busySymbol()
	for w := range numWindows {
		if n := len(appendRing(nil, busy, w)); n > 7500 {
			t.Errorf("busy %s window encodes to %d bytes", windowNames[w], n)
		}
	}
	e := NewEngine(DefaultConfig(), Emit{})
	e.Push(tr("Q", "binance", cex, buy, 0, 1, 1))
	if n := len(e.AppendState(nil, "Q")); n > 300 {
		t.Errorf("quiet symbol encodes to %d bytes", n)
	}
}
