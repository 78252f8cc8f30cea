package uniswap

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/internal/fixtures"
)

// The recorded day of both USDC/WETH pools, as eth_getLogs answers.
const (
	fileA = "defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_eth_getLogs_2024-01-05.DERIVED.json"
	fileB = "defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_eth_getLogs_2024-01-05.DERIVED.json"
)

func loadLogs(tb testing.TB, rel string) []types.Log {
	tb.Helper()
	b, err := os.ReadFile(fixtures.Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Result []types.Log `json:"result"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatalf("cannot decode %s: %v", rel, err)
	}
	return doc.Result
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
			if canonicalUint(data[64:96], 20) && canonicalUint(data[96:128], 16) && tickOK {
				t.Fatalf("words refuse canonical data %x: %v", data, errB)
			}
			return
		}
		if errA == nil && !sameSwap(a, b) {
			t.Fatalf("ABI %+v, words %+v", a, b)
		}
	})
}

// canonicalUint reports whether a 32-byte word holds an unsigned integer of
// size bytes: the test's own statement of canonical data.
func canonicalUint(w []byte, size int) bool {
	for _, c := range w[:32-size] {
		if c != 0 {
			return false
		}
	}
	return true
}
