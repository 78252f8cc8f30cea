package tokenfunds

import (
	"encoding/csv"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

// TestFundsMatchFixture checks every fund's address against the compiled
// address list and that each fund's source is the row's.
func TestFundsMatchFixture(t *testing.T) {
	f, err := os.Open(fixtures.Path(t, "defi/tokenized_treasury_token_addresses_COMPILED.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, fund := range Funds {
		for _, r := range rows[1:] {
			if r[0] == fund.Symbol && r[2] == fund.Chain {
				if common.HexToAddress(r[3]) != fund.Token {
					t.Fatalf("%s: %s, fixture %s", fund.Symbol, fund.Token, r[3])
				}
				if !strings.Contains(fund.Source, strings.TrimPrefix(strings.TrimPrefix(r[4], "https://"), "http://")) {
					t.Fatalf("%s: source %q does not name %q", fund.Symbol, fund.Source, r[4])
				}
				seen[fund.Symbol] = true
			}
		}
	}
	if len(seen) != 5 || len(Funds) != 5 {
		t.Fatalf("funds found in the fixture: %v", seen)
	}
}

func TestSelectors(t *testing.T) {
	for sig, sel := range map[string][]byte{"totalSupply()": TotalSupplyCall, "decimals()": DecimalsCall} {
		if string(crypto.Keccak256([]byte(sig))[:4]) != string(sel) {
			t.Fatalf("selector of %s", sig)
		}
	}
}

func TestDecode(t *testing.T) {
	word := func(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }
	supply, _ := new(big.Int).SetString("2500000000123456", 10)
	got, err := DecodeTotalSupply(word(supply))
	if err != nil || got.Cmp(supply) != 0 {
		t.Fatalf("%v %v", got, err)
	}
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	if got, err := DecodeTotalSupply(word(max)); err != nil || got.Cmp(max) != 0 {
		t.Fatalf("max uint256: %v %v", got, err)
	}
	if d, err := DecodeDecimals(word(big.NewInt(6))); err != nil || d != 6 {
		t.Fatalf("%v %v", d, err)
	}
	f := func(name string, err error) {
		t.Helper()
		if err == nil || !errors.Is(err, ErrMalformed) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	_, err = DecodeTotalSupply(nil)
	f("empty supply (no contract)", err)
	_, err = DecodeTotalSupply(make([]byte, 64))
	f("two words", err)
	_, err = DecodeDecimals(word(big.NewInt(256)))
	f("decimals beyond uint8", err)
	_, err = DecodeDecimals(word(big.NewInt(37)))
	f("absurd decimals", err)
	_, err = DecodeDecimals([]byte{6})
	f("short decimals", err)
}

func TestSnapshotTime(t *testing.T) {
	f := func(blockTime, want int64) {
		t.Helper()
		if got := SnapshotTime(blockTime); got != want {
			t.Fatalf("SnapshotTime(%d) = %d, want %d", blockTime, got, want)
		}
	}
	f(1_704_412_800, 1_704_412_800)      // on the hour
	f(1_704_412_800+59, 1_704_412_800)   // seconds after
	f(1_704_412_800+3599, 1_704_412_800) // the hour's last second
	f(1_704_412_800+3600, 1_704_416_400)
	r := Supply(Funds[0], big.NewInt(1_000_000), 6, 19_000_000, 1_704_412_812)
	rec := &schemas.RatesRecord{Source: "t", ReadTimeNs: 1_704_412_813e9, Body: &schemas.RatesRecord_FundSupply{FundSupply: r}}
	if err := schemas.ValidateRates(rec); err != nil || r.SnapshotTime != 1_704_412_800 || r.Token != "0x7712c34205737192402172409a8f7ccef8aa2aec" {
		t.Fatalf("%v %+v", err, r)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(common.LeftPadBytes([]byte{6}, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := DecodeTotalSupply(b); err == nil && v.BitLen() > 256 {
			t.Fatal("supply beyond uint256")
		} else if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
		if d, err := DecodeDecimals(b); err == nil && d > 36 {
			t.Fatal("decimals beyond 36")
		} else if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
	})
}
