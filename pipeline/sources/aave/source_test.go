package aave_test

import (
	"bytes"
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/aave/aavetest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesview"
)

// TestSourceOnSimulatedChain deploys TestAavePool on go-ethereum's
// simulated backend with the reserve words of the recorded Polygon call
// (fixture defi/aave_v3_polygon_Pool_getReserveData_WETH_*), reads it with
// the source (the Polygon USDC reserve pointed at the test pool), and
// compares the view's DeFi spread figures with the fixture's values. Base
// is configured with an RPC that refuses connections: a fault, Base stale
// in the answer, Polygon still served.
func TestSourceOnSimulatedChain(t *testing.T) {
	recorded := fixtureResult(t)
	d, err := aave.DecodeReserveData(recorded)
	if err != nil {
		t.Fatal(err)
	}
	poly, baseChain := chaintest.New(t), chaintest.New(t)
	art, err := chaintest.LoadArtifact("TestAavePool", aavetest.ABIJSON, aavetest.BinHex)
	if err != nil {
		t.Fatal(err)
	}
	owner := poly.Accounts[0]
	pool := poly.Deploy(t, owner, art)
	polygon := aave.Reserves[4]
	polygon.Pool = pool
	poly.Transact(t, owner, &pool, aavetest.SetReserveData(polygon.Asset, d))

	// The contract answers the real selector with the recorded bytes.
	got, err := poly.Backend.Client().CallContract(context.Background(), ethereum.CallMsg{To: &pool, Data: aave.EncodeGetReserveData(polygon.Asset)}, nil)
	if err != nil || !bytes.Equal(got, recorded) {
		t.Fatalf("TestAavePool answers %x (%v), the recorded Pool %x", got, err, recorded)
	}

	base := aave.Reserves[1]
	head, _ := poly.Backend.Client().HeaderByNumber(context.Background(), nil)
	clk := clock.NewFake(time.Unix(int64(head.Time), 0).Add(2 * time.Second))
	run, reg := ratesfeedtest.Runner(clk)
	readers := map[string]ratesfeed.ChainReader{}
	for name, c := range map[string]*chaintest.Chain{"polygon": poly, "base": baseChain} {
		if readers[name], err = run.ChainReader(ratesfeedtest.ChainConfig(c.Config(name)), "mi-test"); err != nil {
			t.Fatal(err)
		}
	}
	// Base's node answers 503: its reads fail.
	baseChain.Inject(chaintest.Fault{Status: 503})
	src, err := aave.NewSource("aave-v3", []aave.Reserve{base, polygon}, readers, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	rd := ratesfeedtest.Read(t, src)
	recs, dead := ratesfeedtest.Split(t, rd.Take(t, 2, 20*time.Second))
	if len(dead) != 0 {
		t.Fatal(dead)
	}
	var lending, fault *schemas.RatesRecord
	for _, r := range recs {
		switch {
		case r.GetLending() != nil:
			lending = r
		case r.GetFault() != nil:
			fault = r
		}
	}
	if lending == nil || fault == nil {
		t.Fatalf("want a lending record and a fault: %v", recs)
	}
	l := lending.GetLending()
	if l.LiquidityRateRay != d.CurrentLiquidityRate.String() || l.VariableBorrowRateRay != d.CurrentVariableBorrowRate.String() ||
		l.Chain != "polygon" || l.BlockNumber != head.Number.Uint64() || l.BlockTime != int64(head.Time) ||
		l.LastUpdateTime != 0x63e965ca || !strings.HasPrefix(lending.Url, "eth_call polygon "+strings.ToLower(pool.Hex())) {
		t.Fatalf("%v %s", l, lending.Url)
	}
	if f := fault.GetFault(); f.Scope != "aave-v3:base" || !strings.Contains(f.Reason, "503") {
		t.Fatalf("fault %v", f)
	}
	ratesfeedtest.Settle(t, clk)
	if f := ratesfeedtest.Health(reg, "aave-v3"); f.State != "ok" {
		t.Fatalf("one chain failing fails the source: %+v", f)
	}
	if f := ratesfeedtest.Health(reg, "chain:base"); f.State != "failing" {
		t.Fatalf("chain:base %+v", f)
	}

	// The view: Polygon's figures are the fixture's; Base is stale.
	v := ratesview.New(ratesview.Config{Reserves: []ratesview.Reserve{viewReserve(base), viewReserve(polygon)}})
	if err := v.Apply(&schemas.RatesRecord{Source: "treasury:par", Publisher: "U.S. Department of the Treasury", ReadTimeNs: lending.ReadTimeNs,
		Body: &schemas.RatesRecord_Curve{Curve: &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, Date: "2024-10-10",
			Points: []*schemas.CurvePoint{{Tenor: "3M", Percent: 4.75}}}}}); err != nil { // 2024-10-10 3-month yield (treasury fixture)
		t.Fatal(err)
	}
	apply := func(rs []*schemas.RatesRecord) {
		for _, r := range rs {
			if err := v.Apply(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	apply(recs)
	a, err := v.DefiSpread(clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, p := a.Chains[0], a.Chains[1]
	if !b.Stale || b.SupplyAPR != nil || !strings.Contains(b.StaleReason, "503") || p.Stale {
		t.Fatalf("base %+v polygon %+v", b, p)
	}
	// currentLiquidityRate 2815387323021300469652266 ray = 0.2815387323021300469652266 %;
	// currentVariableBorrowRate 22059241931586727924925162 ray = 2.2059241931586727924925162 %.
	if *p.SupplyAPR != 0.2815387323021300469652266 || *p.BorrowAPR != 2.2059241931586727924925162 {
		t.Fatalf("APRs %v %v", *p.SupplyAPR, *p.BorrowAPR)
	}
	if a.ChainsAveraged != 1 || *a.Signal != "TREASURY_PREMIUM" {
		t.Fatalf("%+v", a)
	}

	// Base's node recovers: the next poll reads it (a reserve never set
	// answers zeros, as a real Pool for an unlisted asset) and it is no
	// longer stale.
	baseChain.ClearFaults()
	basePool := baseChain.Deploy(t, baseChain.Accounts[0], art)
	base.Pool = basePool
	src2, err := aave.NewSource("aave-v3:recovered", []aave.Reserve{base}, readers, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute) // past the chain client's backoff
	rd2 := ratesfeedtest.Read(t, src2)
	recs2, _ := ratesfeedtest.Split(t, rd2.Take(t, 1, 20*time.Second))
	if recs2[0].GetLending() == nil || recs2[0].GetLending().LiquidityRateRay != "0" {
		t.Fatalf("%v", recs2)
	}
	apply(recs2)
	if a, _ := v.DefiSpread(clk.Now()); a.Chains[0].Stale {
		t.Fatalf("base still stale: %+v", a.Chains[0])
	}
}

func viewReserve(r aave.Reserve) ratesview.Reserve {
	return ratesview.Reserve{Protocol: aave.Protocol, Chain: r.Chain, ChainID: r.ChainID, Pool: strings.ToLower(r.Pool.Hex()),
		Asset: strings.ToLower(r.Asset.Hex()), Symbol: r.Symbol}
}

// fixtureResult is the recorded eth_call result.
func fixtureResult(t *testing.T) []byte {
	t.Helper()
	b := readFile(t, fixtures.Path(t, "defi/aave_v3_polygon_Pool_getReserveData_WETH_eth_call_response_2023-02-12.json"))
	i := bytes.Index(b, []byte(`"result":"0x`))
	if i < 0 {
		t.Fatal("no result in the fixture")
	}
	s := string(b[i+len(`"result":"0x`):])
	s = s[:strings.IndexByte(s, '"')]
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		t.Fatal("bad hex")
	}
	return common.LeftPadBytes(v.Bytes(), len(s)/2)
}
