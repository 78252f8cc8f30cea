package operators_test

import (
	"errors"
	"math/big"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

func bigs(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return x
}

// TestPoolEventRoundTrip: every kind survives Proto and PoolEventFromProto
// unchanged.
func TestPoolEventRoundTrip(t *testing.T) {
	m := *usdcWeth005
	for _, ev := range []operators.PoolEvent{
		{Meta: &m, Kind: operators.PoolSwap, Block: 18937382, LogIndex: 169, TimeNs: 1704412823e9, TxHash: "0x0bb5",
			SqrtPriceX96: bigs("1662995104975155420368771254341874"), Liquidity: bigs("12453647101533358277"), Tick: 199045},
		{Meta: &m, Kind: operators.PoolMint, Block: 1, TickLower: -887270, TickUpper: 887270, Amount: bigs("340282366920938463463374607431768211455")},
		{Meta: &m, Kind: operators.PoolBurn, Block: 2, TickLower: 198990, TickUpper: 199044, Amount: big.NewInt(1), Retracted: true},
		{Meta: &m, Kind: operators.PoolSnapshot, Block: 3, SqrtPriceX96: bigs("79228162514264337593543950336"), Liquidity: big.NewInt(0), Tick: -1,
			Ticks: []operators.TickNet{{Tick: -20, Net: big.NewInt(7)}, {Tick: 40, Net: big.NewInt(-7)}}},
	} {
		p := ev.Proto()
		b, _ := proto.Marshal(p)
		var q schemas.PoolEvent
		if err := proto.Unmarshal(b, &q); err != nil {
			t.Fatal(err)
		}
		got, err := operators.PoolEventFromProto(&q)
		if err != nil {
			t.Fatalf("%v: %v", &q, err)
		}
		if got.Meta == ev.Meta || *got.Meta != *ev.Meta {
			t.Fatalf("meta %+v, want a copy of %+v", got.Meta, ev.Meta)
		}
		got.Meta = ev.Meta
		if !proto.Equal(got.Proto(), p) {
			t.Fatalf("round trip of %+v gave %+v", ev, got)
		}
	}
}

// TestPoolEventFromProtoRefuses lists the records the view refuses.
func TestPoolEventFromProtoRefuses(t *testing.T) {
	pool := usdcWeth005.Proto()
	f := func(p *schemas.PoolEvent, want string) {
		t.Helper()
		_, err := operators.PoolEventFromProto(p)
		if !errors.Is(err, operators.ErrBadPoolEvent) || err.Error() != "bad pool event: "+want {
			t.Fatalf("%v: %v, want %q", p, err, want)
		}
	}
	swap := func(sqrt, liq string, tick int32) *schemas.PoolEvent {
		return &schemas.PoolEvent{Pool: pool, Kind: schemas.PoolEventKind_POOL_EVENT_KIND_SWAP, SqrtPriceX96: sqrt, Liquidity: liq, Tick: tick}
	}
	f(&schemas.PoolEvent{Kind: schemas.PoolEventKind_POOL_EVENT_KIND_SWAP}, "no pool")
	f(&schemas.PoolEvent{Pool: &schemas.Pool{Chain: "ethereum"}}, "pool without chain or address")
	f(&schemas.PoolEvent{Pool: &schemas.Pool{Chain: "a", Address: "b", Decimals1: 78}}, "token decimals 0/78 out of range")
	f(&schemas.PoolEvent{Pool: &schemas.Pool{Chain: "a", Address: "b", Fee: 1_000_000}}, "fee 1000000 out of range")
	f(&schemas.PoolEvent{Pool: pool}, "unknown kind 0")
	f(swap("", "1", 0), `sqrt_price_x96 "" is not a decimal integer`)
	f(swap("-1", "1", 0), `sqrt_price_x96 "-1" is not a decimal integer`)
	f(swap("0", "1", 0), "sqrt_price_x96 is 0")
	f(swap("1", "0x10", 0), `liquidity "0x10" is not a decimal integer`)
	f(swap("1", "1", 887273), "tick 887273 out of range")
	f(&schemas.PoolEvent{Pool: pool, Kind: schemas.PoolEventKind_POOL_EVENT_KIND_MINT, TickLower: 10, TickUpper: 10, Amount: "1"}, "tick range [10, 10) is empty")
	f(&schemas.PoolEvent{Pool: pool, Kind: schemas.PoolEventKind_POOL_EVENT_KIND_BURN, TickLower: -900000, TickUpper: 10, Amount: "1"}, "tick_lower -900000 out of range")
	f(&schemas.PoolEvent{Pool: pool, Kind: schemas.PoolEventKind_POOL_EVENT_KIND_MINT, TickLower: 0, TickUpper: 10, Amount: "-1"}, `amount "-1" is not a decimal integer`)
	snap := swap("1", "1", 0)
	snap.Kind = schemas.PoolEventKind_POOL_EVENT_KIND_SNAPSHOT
	snap.Ticks = []*schemas.TickLiquidity{{Tick: 10, LiquidityNet: "1"}, {Tick: 10, LiquidityNet: "-1"}}
	f(snap, "snapshot ticks not ascending at 10")
	snap.Ticks = []*schemas.TickLiquidity{{Tick: 10, LiquidityNet: "x"}}
	f(snap, `ticks.liquidity_net "x" is not a decimal integer`)
}

// TestPoolSnapshot: a snapshot replaces the state and makes it complete;
// events of its block or older are ignored, later ones apply.
func TestPoolSnapshot(t *testing.T) {
	m := *usdcWeth005
	st := operators.NewPoolState(&m)
	st.Apply(operators.PoolEvent{Meta: &m, Kind: operators.PoolMint, Block: 5, TickLower: 0, TickUpper: 10, Amount: big.NewInt(99)})
	st.Apply(operators.PoolEvent{Meta: &m, Kind: operators.PoolSnapshot, Block: 10, SqrtPriceX96: big.NewInt(1 << 40), Liquidity: big.NewInt(1000), Tick: 5,
		Ticks: []operators.TickNet{{Tick: -60, Net: big.NewInt(1000)}, {Tick: 0, Net: big.NewInt(0)}, {Tick: 60, Net: big.NewInt(-1000)}}})
	if !st.Complete || st.SnapshotBlock != 10 || st.Liquidity.Int64() != 1000 || len(st.Net) != 2 || st.Net[0] != nil {
		t.Fatalf("after the snapshot %+v", st)
	}
	st.Apply(operators.PoolEvent{Meta: &m, Kind: operators.PoolMint, Block: 10, TickLower: 0, TickUpper: 10, Amount: big.NewInt(5)})
	st.Apply(operators.PoolEvent{Meta: &m, Kind: operators.PoolSwap, Block: 9, SqrtPriceX96: big.NewInt(1), Liquidity: big.NewInt(1), Tick: 1})
	if st.Liquidity.Int64() != 1000 || st.Net[0] != nil || st.Tick != 5 {
		t.Fatalf("events at or before the snapshot applied: %+v", st)
	}
	st.Apply(operators.PoolEvent{Meta: &m, Kind: operators.PoolMint, Block: 11, TickLower: 0, TickUpper: 10, Amount: big.NewInt(5)})
	if st.Liquidity.Int64() != 1005 || st.Net[0].Int64() != 5 || st.Net[10].Int64() != -5 {
		t.Fatalf("a later mint: %+v", st)
	}
}
