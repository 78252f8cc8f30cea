package operators

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// fuzzTradeSize is the number of input bytes one fuzzed trade consumes.
const fuzzTradeSize = 24

// fuzzTrades decodes fuzz input into trades: few symbols, venues and ids
// (so duplicates happen), event times moving back and forth, and prices,
// sizes and notionals that are either arbitrary float64 bit patterns or
// ordinary values.
func fuzzTrades(data []byte) []*schemas.Trade {
	venues := []struct {
		name string
		kind schemas.VenueKind
	}{{"binance", cex}, {"uniswap", evm}, {"raydium", solana}, {"odd", 0}, {"odd2", 4}}
	var out []*schemas.Trade
	now := testBase
	for len(data) >= fuzzTradeSize {
		d := data[:fuzzTradeSize]
		data = data[fuzzTradeSize:]
		v := venues[int(d[1])%len(venues)]
		// Time step: int16 in units of 1ms, shifted left by up to 15 bits
		// (up to ±9 hours).
		now += int64(int16(binary.LittleEndian.Uint16(d[3:]))) * int64(time.Millisecond) << (d[5] % 16)
		t := &schemas.Trade{
			Symbol:      []string{"A", "B", "C", ""}[d[0]%4],
			Venue:       v.name,
			VenueKind:   v.kind,
			Side:        schemas.Side(d[2] % 4),
			EventTimeNs: now,
			TradeId:     fmt.Sprint(d[6] % 32),
			LogIndex:    uint32(d[7] % 2),
		}
		t.Price = fuzzFloat(d[8:12], 100)
		t.Size = fuzzFloat(d[12:16], 1)
		t.NotionalUsd = t.Price * t.Size
		if d[16]%4 == 0 {
			t.NotionalUsd = fuzzFloat(d[16:20], 1000)
		}
		out = append(out, t)
	}
	return out
}

// fuzzFloat returns an ordinary value scaled from 4 bytes, or, when the
// first byte says so, an extreme one.
func fuzzFloat(b []byte, scale float64) float64 {
	u := binary.LittleEndian.Uint32(b)
	switch b[0] % 8 {
	case 0:
		return math.Float64frombits(uint64(u)<<32 | uint64(u)) // arbitrary bits
	case 1:
		return math.Ldexp(float64(u%1000+1), int(int8(b[1]))*4) // huge or tiny
	}
	return scale * float64(u%100_000+1) / 1000
}

// checkOutput fails on non-finite values and broken invariants in emitted
// records.
func checkOutput(tb testing.TB) Emit {
	return Emit{
		Candle: func(c *schemas.Candle) {
			checkFinite(tb, c)
			if !(c.Low <= c.Open && c.Open <= c.High && c.Low <= c.Close && c.Close <= c.High) || c.TradeCount != c.BuyCount+c.SellCount+c.UnknownSideCount ||
				c.BuyPressure < 0 || c.BuyPressure > 100 || c.TradeCount == 0 {
				tb.Fatalf("bad candle %v", c)
			}
		},
		Document: func(d *schemas.IntelligenceDocument) {
			checkFinite(tb, d)
			if d.BuyPressure < 0 || d.BuyPressure > 100 || d.TradeCount < d.LargeTradeCount || d.Observations.WindowSeconds <= 0 ||
				d.Observations.Quality.UnknownSideShare < 0 || d.Observations.Quality.UnknownSideShare > 1 ||
				(d.TradeCount > 0 && !(d.Observations.Low <= d.Observations.High)) {
				tb.Fatalf("bad document %v", d)
			}
			for _, s := range []float64{d.MomentumScore, d.ActivityScore, d.AnomalyScore, d.ConfidenceScore} {
				if s < 0 || s > 100 {
					tb.Fatalf("score out of [0, 100] in %v", d)
				}
			}
			if math.Abs(d.ActivityZScore) > zClamp || math.Abs(d.VolumeZScore) > zClamp || d.SignalAgeSeconds < 0 {
				tb.Fatalf("bad z-score or age in %v", d)
			}
		},
		Reject: func(*schemas.Trade, string) {},
	}
}

// FuzzPush pushes fuzzed trades; no input may panic or make the engine emit
// a NaN or infinity, and an engine restored from a checkpoint taken midway
// continues with the same output.
func FuzzPush(f *testing.F) {
	seed := func(trades ...[fuzzTradeSize]byte) []byte {
		var b []byte
		for _, t := range trades {
			b = append(b, t[:]...)
		}
		return b
	}
	ordinary := [fuzzTradeSize]byte{0, 0, 1, 0xe8, 0x03, 0, 1, 0, 2, 1, 0, 0, 2, 5, 0, 0, 1}
	f.Add(seed(ordinary, ordinary, ordinary))
	var b []byte
	for i := range 60 {
		t := ordinary
		t[0], t[1], t[2], t[6] = byte(i), byte(i/3), byte(i/7), byte(i)
		t[5] = byte(i % 13) // sometimes big time steps
		t[8], t[12] = byte(i*5), byte(i*3)
		b = append(b, t[:]...)
	}
	f.Add(b)
	huge := ordinary
	huge[8], huge[9], huge[12], huge[13] = 1, 120, 1, 120 // huge price and size
	tiny := ordinary
	tiny[8], tiny[9] = 1, 0x90 // tiny price
	f.Add(seed(ordinary, huge, tiny, ordinary, huge))
	f.Fuzz(func(t *testing.T, data []byte) {
		trades := fuzzTrades(data)
		var a, b bytes.Buffer
		record := func(buf *bytes.Buffer, check Emit) Emit {
			return Emit{
				Candle:   func(c *schemas.Candle) { check.Candle(c); mustMarshal(buf, c) },
				Document: func(d *schemas.IntelligenceDocument) { check.Document(d); mustMarshal(buf, d) },
				Reject:   func(x *schemas.Trade, r string) { buf.WriteString(r) },
			}
		}
		e := NewEngine(DefaultConfig(), record(&a, checkOutput(t)))
		half := len(trades) / 2
		for _, x := range trades[:half] {
			e.Push(x)
		}
		e2 := NewEngine(DefaultConfig(), record(&b, checkOutput(t)))
		for _, k := range e.DirtyKeys() {
			if err := e2.RestoreState(k, e.AppendState(nil, k)); err != nil {
				t.Fatalf("cannot restore %q: %v", k, err)
			}
		}
		a.Reset()
		for _, x := range trades[half:] {
			e.Push(x)
			e2.Push(x)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("restored engine diverged")
		}
	})
}

func mustMarshal(buf *bytes.Buffer, m proto.Message) {
	b, err := marshalDet.Marshal(m)
	if err != nil {
		panic(err)
	}
	buf.Write(b)
}

// FuzzRestoreState restores arbitrary bytes as a symbol or the partition
// state; it must never panic, and an engine that accepted the state must
// keep working and re-encode it stably.
func FuzzRestoreState(f *testing.F) {
	e := NewEngine(DefaultConfig(), Emit{})
	for _, x := range genTrades(genOptions{seed: 11, n: 400, symbols: 3, step: 300 * time.Millisecond, dupEvery: 9, oddEvery: 17}) {
		e.Push(x)
	}
	// A symbol with known gaps, so the seeds cover their encoding.
	for i := range 3 {
		g := &schemas.Gap{Source: "s", FromNs: testBase + int64(i)*1e9, ToNs: testBase + int64(i+60)*1e9, Reason: "disconnected"}
		if err := e.PushGap("SYM000", g); err != nil {
			f.Fatal(err)
		}
	}
	for _, k := range e.DirtyKeys() {
		f.Add(k == PartitionKey, e.AppendState(nil, k))
	}
	f.Add(true, []byte{stateVersion, 0})
	f.Add(false, []byte{stateVersion, 0})
	after := genTrades(genOptions{seed: 12, n: 300, symbols: 2, step: 700 * time.Millisecond, dupEvery: 7, oddEvery: 11})
	f.Fuzz(func(t *testing.T, partition bool, data []byte) {
		key := "SYM000"
		if partition {
			key = PartitionKey
		}
		e := NewEngine(DefaultConfig(), Emit{})
		if err := e.RestoreState(key, data); err != nil {
			return
		}
		enc := e.AppendState(nil, key)
		e2 := NewEngine(DefaultConfig(), Emit{})
		if err := e2.RestoreState(key, enc); err != nil {
			t.Fatalf("cannot restore re-encoded state: %v", err)
		}
		if enc2 := e2.AppendState(nil, key); !bytes.Equal(enc, enc2) {
			t.Fatal("re-encoding is not stable")
		}
		for _, x := range after {
			e.Push(x)
		}
		for _, k := range e.DirtyKeys() {
			e.AppendState(nil, k)
		}
	})
}
