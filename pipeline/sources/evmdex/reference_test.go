package evmdex

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// refTrade is the swap-to-trade conversion as it was before the
// fixed-width decoder: big.Int amounts from the ABI, symbols.TokenAmount
// with big.Float. It is the reference the hot path is held to.
func refTrade(ethusd *float64, name string, now time.Time, m *operators.PoolMeta, l *types.Log, sw *uniswap.Swap, tsNs int64) (*schemas.Trade, string) {
	baseIs0, ok := m.BaseIsToken0()
	if !ok {
		return nil, fmt.Sprintf("unsupported pool: %s/%s is not quoted in a USD stablecoin or WETH listed in the registry", m.Ticker0, m.Ticker1)
	}
	baseAmt, quoteAmt, baseDec, quoteDec, baseTicker, quoteTicker, baseSym, quoteSym := sw.Amount1, sw.Amount0, m.Decimals1, m.Decimals0, m.Ticker1, m.Ticker0, m.Symbol1, m.Symbol0
	if baseIs0 {
		baseAmt, quoteAmt, baseDec, quoteDec, baseTicker, quoteTicker, baseSym, quoteSym = sw.Amount0, sw.Amount1, m.Decimals0, m.Decimals1, m.Ticker0, m.Ticker1, m.Symbol0, m.Symbol1
	}
	t := &schemas.Trade{
		Venue: Venue, VenueKind: schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX, Chain: m.Chain, Market: m.Address,
		Symbol: baseSym, VenueSymbol: baseTicker + "/" + quoteTicker,
		EventTimeNs: tsNs, IngestTimeNs: now.UnixNano(),
		TradeId: l.TxHash.Hex(), LogIndex: uint32(l.Index),
		Wallet: "0x" + hex.EncodeToString(sw.Recipient[:]), Source: name,
	}
	switch {
	case baseAmt.Sign() < 0 && quoteAmt.Sign() > 0:
		t.Side = schemas.Side_SIDE_BUY
	case baseAmt.Sign() > 0 && quoteAmt.Sign() < 0:
		t.Side = schemas.Side_SIDE_SELL
	default:
		return nil, "malformed swap: amounts do not have opposite signs"
	}
	size := symbols.TokenAmount(new(big.Int).Abs(baseAmt), baseDec)
	quote := symbols.TokenAmount(new(big.Int).Abs(quoteAmt), quoteDec)
	if !(size > 0) {
		return nil, "bad size: the base amount is zero"
	}
	t.Size = size
	if quoteSym == symbols.USD {
		t.NotionalUsd = quote
		if baseSym == "ETHUSD" {
			*ethusd = quote / size
		}
	} else {
		if *ethusd == 0 {
			return nil, "no ETHUSD price yet: the chain's ETH/stablecoin pools have not traded since start"
		}
		t.NotionalUsd = quote * *ethusd
	}
	t.Price = t.NotionalUsd / size
	if err := schemas.Validate(t); err != nil {
		return nil, err.Error()
	}
	return t, ""
}

func diffTrade(a, b *schemas.Trade) string {
	type f struct {
		name string
		x, y any
	}
	for _, c := range []f{
		{"Venue", a.Venue, b.Venue}, {"VenueKind", a.VenueKind, b.VenueKind}, {"Chain", a.Chain, b.Chain},
		{"Market", a.Market, b.Market}, {"Symbol", a.Symbol, b.Symbol}, {"VenueSymbol", a.VenueSymbol, b.VenueSymbol},
		{"EventTimeNs", a.EventTimeNs, b.EventTimeNs}, {"IngestTimeNs", a.IngestTimeNs, b.IngestTimeNs},
		{"Price", math.Float64bits(a.Price), math.Float64bits(b.Price)},
		{"Size", math.Float64bits(a.Size), math.Float64bits(b.Size)},
		{"NotionalUsd", math.Float64bits(a.NotionalUsd), math.Float64bits(b.NotionalUsd)},
		{"Side", a.Side, b.Side}, {"TradeId", a.TradeId, b.TradeId}, {"LogIndex", a.LogIndex, b.LogIndex},
		{"Wallet", a.Wallet, b.Wallet}, {"Source", a.Source, b.Source},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s: %v != %v", c.name, c.x, c.y)
		}
	}
	return ""
}

var refNow = time.Unix(1_704_500_000, 123)

// refSource returns a decoder of both recorded pools (and of a WETH-quoted
// pool at poolW) with a fixed clock.
func refSource(tb testing.TB) *Source {
	s, err := New(Config{ChainConfig: ChainConfig{Chain: "ethereum", RPC: "http://127.0.0.1:1"}, Now: func() time.Time { return refNow },
		Pools: []PoolConfig{{Chain: "ethereum", Address: poolA.Hex()}, {Chain: "ethereum", Address: poolB.Hex()}}})
	if err != nil {
		tb.Fatal(err)
	}
	s.pools[poolA] = &operators.PoolMeta{Chain: "ethereum", Address: "0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", Fee: 500, TickSpacing: 10,
		Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	s.pools[poolB] = &operators.PoolMeta{Chain: "ethereum", Address: "0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8", Fee: 3000, TickSpacing: 60,
		Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	s.pools[poolW] = &operators.PoolMeta{Chain: "ethereum", Address: "0xcbcdf9626bc03e24f779434178a73a0b4bad62ed", Fee: 3000, TickSpacing: 60,
		Ticker0: "WBTC", Ticker1: "WETH", Decimals0: 8, Decimals1: 18, Symbol0: "BTCUSD", Symbol1: "ETHUSD", Resolved: true}
	return s
}

var poolW = common.HexToAddress("0xcbcdf9626bc03e24f779434178a73a0b4bad62ed")

// refCheck decodes l with the connector and with the reference and fails
// on any difference in the trade (every field), the rejection reason or the
// pool event's price, liquidity and tick.
func refCheck(t *testing.T, s *Source, ethusd *float64, l *types.Log) bool {
	rec, ev := s.decode(l, 1_704_412_800e9)
	sw, err := uniswap.DecodeSwap(l)
	if err != nil || (ev != nil && ev.Kind != operators.PoolSwap) {
		return false // not a swap the ABI decodes: FuzzDecodeSwapWords covers the decoders' agreement
	}
	_, errW := uniswap.DecodeSwapWords(l)
	if errW != nil {
		return false // a non-canonical word the ABI accepts (see FuzzDecodeSwapWords)
	}
	want, reason := refTrade(ethusd, s.name, refNow, s.pools[l.Address], l, &sw, 1_704_412_800e9)
	switch {
	case rec == nil:
		t.Fatalf("no record for %+v", l)
	case want == nil && (rec.Trade != nil || rec.Reason != reason):
		t.Fatalf("reference rejects %q, connector: %v %q", reason, rec.Trade, rec.Reason)
	case want != nil && rec.Trade == nil:
		t.Fatalf("reference trades, connector rejects %q", rec.Reason)
	case want != nil:
		if d := diffTrade(rec.Trade, want); d != "" {
			t.Fatalf("log %s/%d: %s", l.TxHash.Hex(), l.Index, d)
		}
	}
	if ev == nil || ev.SqrtPriceX96.Cmp(sw.SqrtPriceX96) != 0 || ev.Liquidity.Cmp(sw.Liquidity) != 0 || ev.Tick != sw.Tick {
		t.Fatalf("pool event %+v, ABI %+v", ev, sw)
	}
	return want != nil
}

// Every swap of the recorded day gives the same trade, field by field and
// bit for bit, and the same pool event as the big.Int reference.
func TestDecodeMatchesBigReference(t *testing.T) {
	s := refSource(t)
	var ethusd float64
	n := 0
	for _, f := range []string{fileA, fileB} {
		for _, l := range loadLogs(t, f) {
			if l.Topics[0] == uniswap.TopicSwap && refCheck(t, s, &ethusd, &l) {
				n++
			}
		}
	}
	if n != 6046+267 {
		t.Fatalf("%d trades compared", n)
	}
}

// On any swap data, in the recorded pools and in a WETH-quoted one, the
// connector and the reference agree.
func FuzzDecodeMatchesBigReference(f *testing.F) {
	for _, l := range loadLogs(f, fileB)[:10] {
		f.Add([]byte(l.Data), uint8(0))
	}
	f.Add(make([]byte, 160), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, pool uint8) {
		s := refSource(t)
		var ethusd float64
		addr := []common.Address{poolA, poolB, poolW}[int(pool)%3]
		if pool >= 128 { // a price first, for the WETH-quoted pool
			s.swaps.SetETHUSD(2300.5)
			ethusd = 2300.5
		}
		l := &types.Log{Address: addr, Topics: []common.Hash{uniswap.TopicSwap, {1}, {2, 3}}, Data: data, TxHash: common.Hash{9}, Index: 4}
		refCheck(t, s, &ethusd, l)
	})
}
