package schemas

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
)

func randomTrade(r *rand.Rand) *Trade {
	str := func() string {
		if r.IntN(4) == 0 {
			return ""
		}
		return []string{"binance", "BTCUSD", "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", "é€", "sim:seed=1"}[r.IntN(5)]
	}
	f := func() float64 {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.NaN()
		}
		return r.NormFloat64() * 1e4
	}
	return &Trade{Venue: str(), VenueKind: VenueKind(r.IntN(5) - 1), Chain: str(), Market: str(), Symbol: str(), VenueSymbol: str(),
		EventTimeNs: r.Int64() - r.Int64(), IngestTimeNs: int64(r.IntN(3)) * r.Int64(), Price: f(), Size: f(), NotionalUsd: f(),
		Side: Side(r.IntN(4) - 1), TradeId: str(), LogIndex: uint32(r.IntN(3)) * r.Uint32(), Wallet: str(), Source: str()}
}

func TestTradeCodecMatchesGeneratedCode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	det := proto.MarshalOptions{Deterministic: true}
	var in Interner
	var got Trade
	for i := 0; i < 20000; i++ {
		tr := randomTrade(r)
		want, err := det.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if enc := AppendTrade(nil, tr); !bytes.Equal(enc, want) {
			t.Fatalf("trade %d: AppendTrade\n%x\nproto.Marshal\n%x", i, enc, want)
		}
		if err := UnmarshalTrade(want, &got, &in); err != nil {
			t.Fatalf("trade %d: %v", i, err)
		}
		if !proto.Equal(&got, tr) {
			t.Fatalf("trade %d: decoded %v, want %v", i, &got, tr)
		}
	}
}

// FuzzUnmarshalTrade checks that UnmarshalTrade accepts exactly what
// proto.Unmarshal accepts and yields the same message.
func FuzzUnmarshalTrade(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		b, _ := proto.Marshal(randomTrade(r))
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x02, 0xff, 0xfe}) // invalid UTF-8
	f.Add([]byte{0x08, 0x01})             // field 1 as a varint
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got Trade
		werr := proto.Unmarshal(b, &want)
		var in Interner
		gerr := UnmarshalTrade(b, &got, &in)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("proto.Unmarshal error %v, UnmarshalTrade error %v", werr, gerr)
		}
		if werr == nil {
			want.ProtoReflect().SetUnknown(nil)
			if !proto.Equal(&got, &want) {
				t.Fatalf("decoded %v, proto.Unmarshal %v", &got, &want)
			}
		}
	})
}

func BenchmarkTradeCodec(b *testing.B) {
	tr := &Trade{Venue: "binance", VenueKind: VenueKind_VENUE_KIND_CEX, Symbol: "BTCUSD", VenueSymbol: "BTCUSDT", Market: "BTCUSDT",
		EventTimeNs: 1723161255342000000, IngestTimeNs: 1723161255343000000, Price: 61837.63, Size: 0.02, NotionalUsd: 1236.75,
		Side: Side_SIDE_SELL, TradeId: "3735683259", Source: "replay:binance_spot_BTCUSDT_ws_raw_2024-08-08"}
	enc, _ := proto.Marshal(tr)
	b.Run("AppendTrade", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for range b.N {
			buf = AppendTrade(buf[:0], tr)
		}
	})
	b.Run("proto.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, _ = proto.MarshalOptions{Deterministic: true}.Marshal(tr)
		}
	})
	b.Run("UnmarshalTrade", func(b *testing.B) {
		b.ReportAllocs()
		var t Trade
		var in Interner
		for range b.N {
			_ = UnmarshalTrade(enc, &t, &in)
		}
	})
	b.Run("proto.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		var t Trade
		for range b.N {
			t.Reset()
			_ = proto.Unmarshal(enc, &t)
		}
	})
}
