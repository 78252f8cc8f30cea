package soldex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// sameSwaps fails unless the scanner's result (when it did not decline)
// equals the general decoder's: the same swaps, or the same error text.
func sameSwaps(t testing.TB, raw []byte, pools map[string]*Pool, order []string) (scanned bool) {
	t.Helper()
	want, wantErr := parseMetaGeneral(raw, pools, order)
	got, err, ok := scanSwaps(raw, pools, order)
	if !ok {
		return false
	}
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("scan error %v, general %v on %.200q", err, wantErr, raw)
	}
	if len(got) != len(want) {
		t.Fatalf("scan %d swaps, general %d on %.200q", len(got), len(want), raw)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Pool != w.Pool || g.BaseDelta.Cmp(w.BaseDelta) != 0 || g.QuoteDelta.Cmp(w.QuoteDelta) != 0 ||
			g.BaseDecimals != w.BaseDecimals || g.QuoteDecimals != w.QuoteDecimals || g.Trader != w.Trader {
			t.Fatalf("swap %d: scan %+v, general %+v", i, g, w)
		}
	}
	return true
}

// testPools are pool sets for the differential tests: the fixture's pool,
// none, the commission account as a pool, a pool keyed by another name
// than its address, and a pool whose mints are swapped.
func testPools() []map[string]*Pool {
	swapped := *meteoraPool
	swapped.BaseMint, swapped.QuoteMint = meteoraPool.QuoteMint, meteoraPool.BaseMint
	return []map[string]*Pool{
		{meteoraPool.Address: meteoraPool},
		{},
		{"8psNvWTrdNTiVRNzAgsou9kETXNJm2SXZyaKuJraVRtf": {Address: "8psNvWTrdNTiVRNzAgsou9kETXNJm2SXZyaKuJraVRtf", BaseMint: meteoraPool.BaseMint, QuoteMint: meteoraPool.QuoteMint}},
		{meteoraPool.Address: meteoraPool, solPool.Address + "x": &solPool},
		{meteoraPool.Address: &swapped, "7Z2QzVa3q7r7m84nuez9eRn2u3oCUeg9D1bzdRvNFdxN": &swapped},
	}
}

func diffAll(t testing.TB, raw []byte) (scanned bool) {
	for _, pools := range testPools() {
		scanned = sameSwaps(t, raw, pools, nil) || scanned
		sameSwaps(t, raw, pools, []string{meteoraPool.Address, "7Z2QzVa3q7r7m84nuez9eRn2u3oCUeg9D1bzdRvNFdxN", "nope"})
	}
	return scanned
}

// TestScanMatchesGeneral: on the real metadata, compacted, re-ordered and
// edited into deposits, failures and odd shapes, the scanning decoder gives
// the general decoder's swaps or errors, and it reads (does not decline)
// the common shapes.
func TestScanMatchesGeneral(t *testing.T) {
	raw := readFixture(t)
	if !diffAll(t, raw) {
		t.Fatal("the scanner declined the fixture")
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	compact, _ := json.Marshal(m) // keys sorted, no white space
	if !diffAll(t, compact) {
		t.Fatal("the scanner declined the compacted fixture")
	}
	// The pre balances moved to the end of the document.
	pre, _ := json.Marshal(m["preTokenBalances"])
	delete(m, "preTokenBalances")
	rest, _ := json.Marshal(m)
	moved := append(append(rest[:len(rest)-1:len(rest)-1], `,"preTokenBalances":`...), append(pre, '}')...)
	if !diffAll(t, moved) {
		t.Fatal("the scanner declined pre balances after post balances")
	}
	edits := map[string][2]string{
		"deposit (ErrNotSwap)":        {`"amount": "106768867856219"`, `"amount": "206768867856219"`},
		"failed":                      {`"err": null`, `"err": {"InstructionError": [3, {"Custom": 6004}]}`},
		"duplicate err":               {`"err": null`, `"err": null, "err": 5`},
		"upper-case key":              {`"postTokenBalances"`, `"PostTokenBalances"`},
		"escaped key":                 {`"postTokenBalances"`, `"postTokenBalance\u0073"`},
		"negative amount":             {`"amount": "0"`, `"amount": "-5"`},
		"19-digit amount":             {`"amount": "9452950000000"`, `"amount": "9452950000000000000"`},
		"30-digit amount":             {`"amount": "9452950000000"`, `"amount": "945295000000000000000000000000"`},
		"decimals 31":                 {`"decimals": 9`, `"decimals": 31`},
		"decimals as float":           {`"decimals": 9`, `"decimals": 9.0`},
		"index as string":             {`"accountIndex": 14`, `"accountIndex": "14"`},
		"leading zero index":          {`"accountIndex": 14`, `"accountIndex": 014`},
		"mint changes":                {`"mint": "7i5KKsX2weiTkry7jA4ZwSuXGhs5eJBEjY8vVxR4pfRx"`, `"mint": "So11111111111111111111111111111111111111112"`},
		"empty mint":                  {`"mint": "AFbX8oGjGpmVFywbVouvhQSRmiW2aR1mohfahi4Y2AdB"`, `"mint": ""`},
		"escaped owner":               {`"owner": "BMCheVSdKZ6rxsoJ1MChA5HQRtk5pz4QkCLs7MXFkvZJ"`, `"owner": "BMCheVSdKZ6rxsoJ1MChA5HQRtk5pz4QkCLs7MXFkvZ\u004a"`},
		"unicode log":                 {`"Program log: Instruction: Swap"`, `"Program log: Instruction: Swap é"`},
		"control char in log":         {`"Program log: Instruction: Swap"`, "\"Program log: Instruction:\tSwap\""},
		"null balances":               {`"preTokenBalances": [`, `"preTokenBalances": null, "x": [`},
		"missing owner":               {`"owner": "7Z2QzVa3q7r7m84nuez9eRn2u3oCUeg9D1bzdRvNFdxN",`, ``},
		"bad literal":                 {`"err": null`, `"err": nul`},
		"bad number in skipped value": {`"fee": 80000`, `"fee": 08`},
		"exponent in skipped value":   {`"fee": 80000`, `"fee": -8.5E+3`},
		"trailing garbage":            {"\n}", "\n}x"},
	}
	for name, e := range edits {
		if !bytes.Contains(raw, []byte(e[0])) {
			t.Fatalf("%s: fixture lacks %s", name, e[0])
		}
		for _, n := range []int{1, -1} {
			scanned := diffAll(t, []byte(strings.Replace(string(raw), e[0], e[1], n)))
			if !scanned && (name == "deposit (ErrNotSwap)" || name == "exponent in skipped value") {
				t.Fatalf("%s: the scanner declined", name)
			}
		}
	}
}

// TestScanMutations: every single-byte deletion and substitution of the
// real metadata gives the same result on both paths.
func TestScanMutations(t *testing.T) {
	raw := readFixture(t)
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	subst := []byte(`"{}[],:0-9\ e.x` + "\x00\xff")
	buf := make([]byte, len(raw))
	for i := range raw {
		if i%2 == 0 {
			buf = append(append(buf[:0], raw[:i]...), raw[i+1:]...)
		} else {
			buf = append(buf[:0], raw...)
			buf[i] = subst[i%len(subst)]
		}
		sameSwaps(t, buf, pools, nil)
	}
}

// TestScanBalanceLimit: the scanner reads up to maxScanBalances balances and
// leaves longer lists (more than a Solana transaction can hold; its account
// matching is quadratic) to the general path, which gives the result.
func TestScanBalanceLimit(t *testing.T) {
	doc := func(n int) []byte {
		var sb strings.Builder
		sb.WriteString(`{"preTokenBalances":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"accountIndex":` + strconv.Itoa(i) + `,"mint":"` + meteoraPool.BaseMint + `","owner":"` + meteoraPool.Address + `","uiTokenAmount":{"amount":"5","decimals":9}}`)
		}
		sb.WriteString(`]}`)
		return []byte(sb.String())
	}
	pools := map[string]*Pool{meteoraPool.Address: meteoraPool}
	if !sameSwaps(t, doc(maxScanBalances), pools, nil) {
		t.Fatalf("%d balances declined", maxScanBalances)
	}
	if sameSwaps(t, doc(maxScanBalances+1), pools, nil) {
		t.Fatalf("%d balances scanned", maxScanBalances+1)
	}
	if _, err := ParseMeta(doc(5000), pools); err != nil {
		t.Fatal(err)
	}
}
