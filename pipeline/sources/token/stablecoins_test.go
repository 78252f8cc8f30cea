package token_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/token"
)

// TestDefaultStablecoinsMatchFixtures: the eleven listed stablecoins are
// the detector's list; their addresses and decimals are those of Uniswap's
// default token list where it has them, and the feeds those of Aave v3's
// Ethereum deployment (both real files in ../shared/fixtures/defi).
func TestDefaultStablecoinsMatchFixtures(t *testing.T) {
	list := token.DefaultStablecoins()
	if len(list) != 11 || len(operators.StablecoinSymbols) != 11 {
		t.Fatalf("%d stablecoins", len(list))
	}
	b, err := os.ReadFile(fixtures.Path(t, "defi/uniswap_default_token_list_mainnet_tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var toks []struct {
		Symbol   string
		Address  string
		Decimals uint8
	}
	if err := json.Unmarshal(b, &toks); err != nil {
		t.Fatal(err)
	}
	bySym := map[string]int{}
	for i, tk := range toks {
		bySym[tk.Symbol] = i
	}
	f, err := os.Open(fixtures.Path(t, "defi/chainlink_ethereum_usd_aggregators_aave-v3-deploy_COMPILED.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]string{}
	for _, r := range rows[1:] {
		feeds[r[2]] = r[5]
	}
	inList := 0
	for i, sc := range list {
		if sc.Symbol != operators.StablecoinSymbols[i] || sc.Chain != "ethereum" {
			t.Fatalf("%d: %s on %s, the detector lists %s", i, sc.Symbol, sc.Chain, operators.StablecoinSymbols[i])
		}
		if j, ok := bySym[sc.Symbol]; ok {
			inList++
			if !strings.EqualFold(toks[j].Address, sc.Address.Hex()) || toks[j].Decimals != sc.Decimals {
				t.Fatalf("%s: %s/%d, token list %s/%d", sc.Symbol, sc.Address.Hex(), sc.Decimals, toks[j].Address, toks[j].Decimals)
			}
		}
		if feed, ok := feeds[sc.Symbol]; ok && !strings.EqualFold(feed, sc.Feed.Hex()) {
			t.Fatalf("%s feed %s, Aave's %s", sc.Symbol, sc.Feed.Hex(), feed)
		}
		if _, ok := feeds[sc.Symbol]; !ok && sc.Feed != (common.Address{}) {
			t.Fatalf("%s has a feed no fixture names", sc.Symbol)
		}
	}
	if inList != 9 {
		t.Fatalf("%d of 11 checked against the token list", inList)
	}
}

// TestStablecoinDepeg reads the suite's USDT against USDC as the depeg
// watch does, dumps USDT into the pool through the router, and runs the
// readings through the detector: WATCH, then DEPEG, confirmed by depth,
// then by the feed too.
func TestStablecoinDepeg(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	sc := token.Stablecoin{Symbol: "USDT", Chain: "base", Address: e.s.USDT, Decimals: 6, Feed: e.s.USDTFeed}
	det := operators.NewDepegDetector()
	var evs []operators.AlertEvent
	read := func() float64 {
		t.Helper()
		q, err := e.reader(t, 10*time.Second).StablecoinQuote(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		if !q.HasOracle || q.Pool == "" || q.DepthUsd < 1.9e6 {
			t.Fatalf("quote %+v", q)
		}
		evs = det.Push(q, evs)
		return q.DexPrice
	}
	if p := read(); math.Abs(p-1) > 1e-9 || len(evs) != 0 {
		t.Fatalf("at the peg: %v, %d events", p, len(evs))
	}
	usd := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e6)) }
	e.s.V2.Swap(t, e.s.Owner, usd(2_000), e.s.USDT, e.s.USDC)
	e.ch.Backend.Commit()
	if p := read(); p > 0.9970 || p < 0.9955 || len(evs) != 1 {
		t.Fatalf("after 2,000: %v, %d events", p, len(evs))
	}
	e.s.V2.Swap(t, e.s.Owner, usd(10_000), e.s.USDT, e.s.USDC)
	e.ch.Send(t, e.s.Owner, e.s.USDTFeed, tokentest.Aggregator.ABI, "setAnswer", big.NewInt(98_500_000))
	if p := read(); p > 0.99 || len(evs) != 2 {
		t.Fatalf("after 12,000: %v, %d events", p, len(evs))
	}
	var d1, d2 operators.StablecoinDepegData
	_ = json.Unmarshal(evs[0].Data, &d1)
	_ = json.Unmarshal(evs[1].Data, &d2)
	if d1.Level != operators.DepegWatch || d1.ConfirmedBy != "depth" || d2.Level != operators.DepegLevel || d2.ConfirmedBy != "depth+oracle" ||
		d2.OraclePrice == nil || *d2.OraclePrice != 0.985 {
		t.Fatalf("events %+v %+v", d1, d2)
	}
}
