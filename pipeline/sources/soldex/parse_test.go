package soldex

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
)

const fixtureMeta = "defi/solana/carbon_core_cpi_tx_meta.json"

// meteoraPool is the Meteora DLMM pool of the fixture: it owns the vault
// token accounts 14 (mint 7i5K…) and 15 (mint AFbX…).
var meteoraPool = &Pool{Address: "BMCheVSdKZ6rxsoJ1MChA5HQRtk5pz4QkCLs7MXFkvZJ", Venue: "meteora_dlmm", Name: "fixture pool",
	BaseMint: "7i5KKsX2weiTkry7jA4ZwSuXGhs5eJBEjY8vVxR4pfRx", QuoteMint: "AFbX8oGjGpmVFywbVouvhQSRmiW2aR1mohfahi4Y2AdB"}

func readFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, fixtureMeta))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseMetaFixture derives the swap of the real transaction from its
// vault deltas: they equal the amounts of the program's own SwapEvent log
// (amount_in 9372599925000, amount_out 1700985700449).
func TestParseMetaFixture(t *testing.T) {
	raw := readFixture(t)
	if !strings.Contains(string(raw), "amount_in: 9372599925000, amount_out: 1700985700449") {
		t.Fatal("fixture lacks the SwapEvent log")
	}
	swaps, err := ParseMeta(raw, map[string]*Pool{meteoraPool.Address: meteoraPool})
	if err != nil || len(swaps) != 1 {
		t.Fatalf("swaps %v err %v", swaps, err)
	}
	s := swaps[0]
	if s.QuoteDelta.String() != "9372599925000" || s.BaseDelta.String() != "-1700985700449" || s.BaseDecimals != 9 || s.QuoteDecimals != 9 {
		t.Fatalf("swap %+v", s)
	}
	if s.Trader != "7Z2QzVa3q7r7m84nuez9eRn2u3oCUeg9D1bzdRvNFdxN" {
		t.Fatalf("trader %s", s.Trader)
	}
	// Unknown pools: nothing, no error.
	if sw, err := ParseMeta(raw, map[string]*Pool{}); err != nil || len(sw) != 0 {
		t.Fatalf("no pools: %v %v", sw, err)
	}
	// The commission account (owner 8psN…) is not a pool: declaring it as
	// one with only one vault moving makes no swap.
	commission := &Pool{Address: "8psNvWTrdNTiVRNzAgsou9kETXNJm2SXZyaKuJraVRtf", BaseMint: meteoraPool.BaseMint, QuoteMint: meteoraPool.QuoteMint}
	if sw, err := ParseMeta(raw, map[string]*Pool{commission.Address: commission}); err != nil || len(sw) != 0 {
		t.Fatalf("commission account: %v %v", sw, err)
	}
}

func TestParseMetaErrors(t *testing.T) {
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	f := func(raw string, want error) {
		t.Helper()
		_, err := ParseMeta([]byte(raw), pools)
		if !errors.Is(err, want) {
			t.Fatalf("ParseMeta(%.80s) = %v, want %v", raw, err, want)
		}
	}
	f(`{`, ErrMalformed)
	f(`{"err":{"InstructionError":[0,"Custom"]}}`, ErrFailed)
	f(`{"preTokenBalances":[{"accountIndex":1,"mint":"m","owner":"o","uiTokenAmount":{"amount":"-5","decimals":6}}]}`, ErrMalformed)
	f(`{"preTokenBalances":[{"accountIndex":1,"mint":"m","uiTokenAmount":{"amount":"x","decimals":6}}]}`, ErrMalformed)
	// Both vaults grow: a deposit, not a swap.
	v := func(i int, mint, amt string) string {
		return `{"accountIndex":` + string(rune('0'+i)) + `,"mint":"` + mint + `","owner":"` + meteoraPool.Address + `","uiTokenAmount":{"amount":"` + amt + `","decimals":9}}`
	}
	f(`{"err":null,"preTokenBalances":[`+v(1, meteoraPool.BaseMint, "10")+`,`+v(2, meteoraPool.QuoteMint, "10")+`],"postTokenBalances":[`+v(1, meteoraPool.BaseMint, "20")+`,`+v(2, meteoraPool.QuoteMint, "20")+`]}`, ErrNotSwap)
}

func TestFromEntry(t *testing.T) {
	if _, err := FromEntry([]byte(`{"kind":"soldex","rpc":"http://x","pools":[{"address":"a","venue":"v","base_mint":"b","quote_mint":"q"}],"poll_interval":"1s"}`), nil); err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		`{"kind":"soldex","rpc":"http://x","pools":[]}`:                                                   "rpc and pools are required",
		`{"kind":"soldex","rpc":"http://x","pools":[{"address":"a"}]}`:                                    "base_mint and quote_mint are required",
		`{"kind":"soldex","rpc":"http://x","pools":[],"extra":1}`:                                         "unknown field",
		`{"kind":"soldex","rpc":"http://x","poll_interval":"soon","pools":[{"address":"a","venue":"v"}]}`: "positive duration",
	} {
		if _, err := FromEntry([]byte(raw), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("FromEntry(%s) = %v, want %q", raw, err, want)
		}
	}
}

// TestParseMetaMalformedSequence: a sequence of malformed documents that made
// the former decoder (goccy/go-json) panic on the third call — its state
// carried between calls, goccy/go-json#604 — is a sequence of ErrMalformed.
func TestParseMetaMalformedSequence(t *testing.T) {
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	inputs := []string{`[{"x":1},{"y":`, `{"\`}
	for i := 0; i < 10; i++ {
		if _, err := ParseMeta([]byte(inputs[i%len(inputs)]), pools); !errors.Is(err, ErrMalformed) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}
