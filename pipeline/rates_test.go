package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/aave/aavetest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	_ "github.com/marketintel/mi/pipeline/sources/fred"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds/fundtest"
	_ "github.com/marketintel/mi/pipeline/sources/treasury"
	"github.com/marketintel/mi/sinks/ratesview"
)

// ratesFixtureServer serves the real rates captures at their publishers'
// paths (ratesreplay).
func ratesFixtureServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv, err := pubreplay.New(ratesreplay.Routes(fixtures.Dir(t)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs
}

// ratesChain starts a simulated chain with TestAavePool holding the
// recorded Polygon reserve words as the USDC reserve, and the five fund
// tokens with made-up supplies.
func ratesChain(t *testing.T) (c *chaintest.Chain, pool common.Address, tokens map[string]common.Address) {
	t.Helper()
	c = chaintest.New(t)
	owner := c.Accounts[0]
	art, err := chaintest.LoadArtifact("TestAavePool", aavetest.ABIJSON, aavetest.BinHex)
	if err != nil {
		t.Fatal(err)
	}
	pool = c.Deploy(t, owner, art)
	_, d, err := ratesreplay.Reserve(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	c.Transact(t, owner, &pool, aavetest.SetReserveData(aave.Reserves[4].Asset, d))
	fart, err := chaintest.LoadArtifact("TestFundToken", fundtest.ABIJSON, fundtest.BinHex)
	if err != nil {
		t.Fatal(err)
	}
	tokens = map[string]common.Address{}
	for _, f := range tokenfunds.Funds {
		dec := uint8(6)
		if f.Symbol == "OUSG" || f.Symbol == "USDY" {
			dec = 18
		}
		addr := c.Deploy(t, owner, fart, f.Symbol+" test", f.Symbol, dec)
		c.Transact(t, owner, &addr, fundtest.Mint(owner.Address, new(big.Int).Mul(big.NewInt(1_000_000), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil))))
		tokens[f.Symbol] = addr
	}
	return c, pool, tokens
}

// TestRatesPathEndToEnd runs the rates domain as `mi run` does, offline:
// the pollers, opened from a sources configuration, read the real
// captures from a local publisher server and the simulated chain; their
// records go through the embedded broker on mi.rates.v1; two API
// instances rebuild the view from the topic and give the same answers;
// the side sink writes the Parquet files. Every figure checked below is
// the fixture's value it came from.
func TestRatesPathEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	hs := ratesFixtureServer(t)
	c, pool, tokens := ratesChain(t)

	var funds []string
	for _, f := range tokenfunds.Funds {
		funds = append(funds, fmt.Sprintf(`{"symbol": %q, "token": %q}`, f.Symbol, tokens[f.Symbol].Hex()))
	}
	cfgJSON := `{
	  "http": {"default_limit": {"rate": 1000, "burst": 1000}},
	  "chains": [
	    {"chain": "polygon", "rpc": "` + c.URL + `", "limit": {"rate": 1000, "burst": 1000}},
	    {"chain": "ethereum", "rpc": "` + c.URL + `", "limit": {"rate": 1000, "burst": 1000}}
	  ],
	  "sources": [
	    {"kind": "treasury-curve", "name": "treasury:par", "curve": "par", "format": "csv",
	     "urls": ["` + hs.URL + `/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/2024/all?type=daily_treasury_yield_curve&field_tdr_date_value=2024&page&_format=csv"]},
	    {"kind": "fred", "name": "fred:real-10y", "base_url": "` + hs.URL + `", "series": [{"id": "DFII10", "as": "par_real:10Y"}]},
	    {"kind": "fred", "name": "fred:estr", "series": [
	      {"id": "ECBESTRVOLWGTTRMDMNRT", "as": "estr", "url": "` + hs.URL + `/fred/series/observations?series_id=ECBESTRVOLWGTTRMDMNRT&file_type=json"},
	      {"id": "ECBESTRTOTVOL", "as": "estr_volume", "url": "` + hs.URL + `/fred/series/observations?series_id=ECBESTRTOTVOL&file_type=json"}]},
	    {"kind": "nyfed", "name": "nyfed", "base_url": "` + hs.URL + `"},
	    {"kind": "treasury-auctions", "name": "treasury:auctions", "api": "fiscaldata", "base_url": "` + hs.URL + `"},
	    {"kind": "aave-v3", "name": "aave-v3", "reserves": [{"chain": "polygon", "pool": "` + pool.Hex() + `"}]},
	    {"kind": "tokenfunds", "name": "tokenfunds:ethereum", "chain": "ethereum", "funds": [` + strings.Join(funds, ", ") + `]}
	  ]}`
	cfg, err := sources.ParseConfig([]byte(cfgJSON))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := cfg.Open(sources.Env{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	emb, err := StartEmbedded("127.0.0.1:0", "", quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 3); err != nil {
		t.Fatal(err)
	}
	ictx, stopIngest := context.WithCancel(ctx)
	defer stopIngest()
	for _, s := range srcs {
		go func() {
			defer s.Close()
			_ = Ingest(ictx, IngestConfig{Brokers: brokers, Live: true, Logger: quiet, TxnInterval: 50 * time.Millisecond}, s, Checkpoint{})
		}()
	}
	// 196 curves (2024 CSV), 275 DFII10 curves (400 days), 4 €STR,
	// 4 SOFR, 108 EFFR, 25 + 90 auctions, 1 reserve, 5 funds.
	const want = 196 + 275 + 4 + 4 + 108 + 25 + 90 + 1 + 5

	follow := func() *ratesview.View {
		v, sv, _ := RatesView("Example Markets", nil)
		go func() { _ = FollowSide(ctx, brokers, []SideView{sv}, quiet, nil) }()
		for v.Applied() < want {
			if ctx.Err() != nil {
				t.Fatalf("the view has %d of %d records", v.Applied(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return v
	}
	a := follow()
	stopIngest()
	b := follow() // a second instance, started after the sources stopped
	files := t.TempDir()
	sctx, stopSink := context.WithCancel(ctx)
	sinkDone := make(chan error, 1)
	go func() {
		sinkDone <- SinkRatesFiles(sctx, brokers, files, 100*time.Millisecond, quiet)
	}()

	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	answers := func(v *ratesview.View) string {
		c, err := v.Curve(now)
		if err != nil {
			t.Fatal(err)
		}
		d, err := v.DefiSpread(now)
		if err != nil {
			t.Fatal(err)
		}
		f, err := v.TokenizedTreasuries(now)
		if err != nil {
			t.Fatal(err)
		}
		au, err := v.Auctions(now, 14)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal([]any{c, d, f, au})
		return string(j)
	}
	if answers(a) != answers(b) {
		t.Fatal("two API instances give different answers")
	}

	cu, _ := a.Curve(now)
	n := cu.Nominal
	// The as-published CSV: 10/10/2024 and 10/09/2024.
	if n.Date != "2024-10-10" || *n.PreviousDate != "2024-10-09" || n.Source.Publisher != "U.S. Department of the Treasury" || n.AgeDays != 777 {
		t.Fatalf("nominal %+v", n)
	}
	slope := map[string]ratesview.SlopeFigure{}
	for _, s := range cu.Slopes {
		slope[s.Name] = s
	}
	if *slope["2s10s"].Bp != 11 || *slope["2s10s"].Inverted || *slope["3m10y"].Bp != -66 || !*slope["3m10y"].Inverted ||
		*slope["5s30s"].Bp != 47 || *slope["3m2y"].Bp != -77 || *slope["2s10s"].ChangeBp != 4 {
		t.Fatalf("slopes %+v", cu.Slopes)
	}
	// DFII10 2024-07-30 1.9; the CSV's 10 Yr of 07/30/2024 4.15.
	if cu.Real.Date != "2024-07-30" || *cu.Real.Points[2].Yield != 1.9 || cu.Breakeven10Y.Percent != 2.25 || cu.Breakeven10Y.NominalYield != 4.15 {
		t.Fatalf("real %+v breakeven %+v", cu.Real, cu.Breakeven10Y)
	}
	o := cu.Overnight
	if o.SOFR.Date != "2024-06-06" || o.SOFR.Percent != 5.33 || *o.SOFR.Volume != 2008 ||
		o.EFFR.Date != "2023-06-06" || o.EFFR.Percent != 5.08 || *o.EFFR.TargetTo != 5.25 ||
		o.ESTR.Date != "2024-06-06" || o.ESTR.Percent != 3.911 || *o.ESTR.Volume != 52206 {
		t.Fatalf("overnight %+v %+v %+v", o.SOFR, o.EFFR, o.ESTR)
	}
	if !strings.Contains(cu.Notice, "Terms of Use posted at newyorkfed.org") {
		t.Fatal(cu.Notice)
	}
	ds, _ := a.DefiSpread(now)
	var p ratesview.ChainRate
	for _, c := range ds.Chains {
		if c.Chain == "polygon" {
			p = c
		}
	}
	if ds.Bill3M.Yield != 4.75 || ds.Bill3M.Date != "2024-10-10" || *p.SupplyAPR != 0.2815387323021300469652266 || *p.BorrowAPR != 2.2059241931586727924925162 {
		t.Fatalf("defi %+v %+v", ds.Bill3M, p)
	}
	tt, _ := a.TokenizedTreasuries(now)
	if *tt.Funds[0].Supply != 1_000_000 || *tt.Funds[1].Decimals != 18 {
		t.Fatalf("funds %+v", tt.Funds[:2])
	}
	au, _ := a.Auctions(now, 14)
	if au.DataAsOf != "2026-01-29" || len(au.Recent) == 0 {
		t.Fatalf("auctions %+v", au)
	}
	var sl2 bool
	if au2, _ := a.Auctions(now, 60); au2 != nil {
		for _, x := range au2.Recent {
			if x.Cusip == "912797SL2" {
				sl2 = *x.HighDiscountRate == 3.54 && *x.BidToCover == 2.84 && *x.OfferingAmount == 86000000000
			}
		}
	}
	if !sl2 {
		t.Fatal("912797SL2 not shown with the fixture's figures (discount 3.540, bid-to-cover 2.84, $86 bn)")
	}

	// The Parquet files of the same records: DuckDB computes the same slope.
	deadline := time.Now().Add(time.Minute)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for {
		var bp float64
		_, _ = db.Exec(datasets.RatesViews(files)[0].CreateSQL())
		err := db.QueryRow(`SELECT 100 * (max(yield_percent) FILTER (tenor = '10Y') - max(yield_percent) FILTER (tenor = '2Y'))
			FROM rates_curves WHERE curve = 'par_nominal' AND date = DATE '2024-10-10'`).Scan(&bp)
		if err == nil && fmt.Sprintf("%.6f", bp) == "11.000000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Parquet files do not give 2s10s 11 bp: %v %v", bp, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	stopSink()
	if err := <-sinkDone; err != nil {
		t.Fatal(err)
	}
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
