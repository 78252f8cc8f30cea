package evmdex

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/operators"
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
		if _, err := DecodeSwap(&l); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("DecodeSwap error %v is not ErrMalformed", err)
		}
	})
}

// TestDecodeSwapWordsMatchesABI decodes every recorded swap both ways.
func TestDecodeSwapWordsMatchesABI(t *testing.T) {
	n := 0
	for _, f := range []string{fileA, fileB} {
		for _, l := range loadLogs(t, f) {
			if l.Topics[0] != TopicSwap {
				continue
			}
			a, errA := DecodeSwap(&l)
			b, errB := DecodeSwapWords(&l)
			if errA != nil || errB != nil || !sameSwap(a, b) {
				t.Fatalf("log %s/%d: ABI %+v %v, words %+v %v", l.TxHash.Hex(), l.Index, a, errA, b, errB)
			}
			n++
		}
	}
	if n != 6046+267 {
		t.Fatalf("%d swaps", n)
	}
}

func sameSwap(a, b Swap) bool {
	return a.Sender == b.Sender && a.Recipient == b.Recipient && a.Amount0.Cmp(b.Amount0) == 0 && a.Amount1.Cmp(b.Amount1) == 0 &&
		a.SqrtPriceX96.Cmp(b.SqrtPriceX96) == 0 && a.Liquidity.Cmp(b.Liquidity) == 0 && a.Tick == b.Tick
}

// FuzzDecodeSwapWords: on any data the word decoder and the ABI agree, except
// that the word decoder also refuses words that are not canonical for their
// type (the ABI decoder of go-ethereum does not range-check uint160, uint128
// and int24 words; a pool contract never emits such words).
func FuzzDecodeSwapWords(f *testing.F) {
	for _, l := range loadLogs(f, fileB)[:10] {
		f.Add([]byte(l.Data))
	}
	f.Add(make([]byte, 160))
	topics := []common.Hash{TopicSwap, {}, {}}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := &types.Log{Topics: topics, Data: data}
		a, errA := DecodeSwap(l)
		b, errB := DecodeSwapWords(l)
		if errA != nil && errB == nil {
			t.Fatalf("ABI err %v, words accept %x", errA, data)
		}
		if errA == nil && errB != nil {
			_, tickOK := int24(common.Hash(data[128:160]))
			if zeroExtended(data[64:96], 20) && zeroExtended(data[96:128], 16) && tickOK {
				t.Fatalf("words refuse canonical data %x: %v", data, errB)
			}
			return
		}
		if errA == nil && !sameSwap(a, b) {
			t.Fatalf("ABI %+v, words %+v", a, b)
		}
	})
}

// zeroExtended reports whether a 32-byte word holds an unsigned integer of
// size bytes: the test's own statement of canonical data.
func zeroExtended(w []byte, size int) bool {
	for _, c := range w[:32-size] {
		if c != 0 {
			return false
		}
	}
	return true
}
