package evmdex

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// FuzzDecodeLog feeds arbitrary eth_getLogs entries through the JSON
// decoding, the event decoders and the trade conversion: every input is a
// log, a malformed-log error or a rejection with a reason, never a panic.
func FuzzDecodeLog(f *testing.F) {
	for _, l := range loadLogs(f, fileB)[:20] {
		b, _ := json.Marshal(l)
		f.Add(b)
	}
	f.Add([]byte(`{"address":"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640","topics":["0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67"],"data":"0x","transactionHash":"0x00"}`))
	f.Add([]byte(`{"topics":[],"data":"0x1"}`))
	meta := &operators.PoolMeta{Chain: "ethereum", Address: "0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8", Fee: 3000, TickSpacing: 60,
		Ticker0: "USDC", Ticker1: "WETH", Decimals0: 6, Decimals1: 18, Symbol0: "USD", Symbol1: "ETHUSD", Resolved: true}
	s, err := New(Config{ChainConfig: ChainConfig{Chain: "ethereum", RPC: "http://127.0.0.1:1"}, Pools: []PoolConfig{{Chain: "ethereum", Address: meta.Address}}})
	if err != nil {
		f.Fatal(err)
	}
	s.pools[common.HexToAddress(meta.Address)] = meta
	f.Fuzz(func(t *testing.T, raw []byte) {
		var l types.Log
		if json.Unmarshal(raw, &l) != nil {
			return
		}
		rec, ev := s.decode(&l, 1_704_412_800e9)
		if rec != nil && rec.Trade == nil && rec.Reason == "" {
			t.Fatalf("rejection without a reason for %s", raw)
		}
		if rec != nil && rec.Trade != nil && (rec.Trade.Price <= 0 || rec.Trade.Size <= 0) {
			t.Fatalf("bad trade %v", rec.Trade)
		}
		if ev != nil && ev.Kind == operators.PoolSwap && ev.SqrtPriceX96 == nil {
			t.Fatal("swap event without price")
		}
		if _, err := uniswap.DecodeSwap(&l); err != nil && !errors.Is(err, uniswap.ErrMalformed) {
			t.Fatalf("uniswap.DecodeSwap error %v is not uniswap.ErrMalformed", err)
		}
	})
}
