package tokenfunds_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/ratesfeedtest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds/fundtest"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesview"
)

func units(n int64, decimals int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), new(big.Int).Exp(big.NewInt(10), big.NewInt(decimals), nil))
}

// TestSourceOnSimulatedChain deploys five fund tokens with the real
// funds' decimals on go-ethereum's simulated backend, snapshots them,
// moves the chain 24 hours on with BUIDL's supply up 1 %, snapshots again,
// and checks the view: supplies in whole tokens with the decimals read
// from the tokens, BUIDL +1 % over 24 h, the gauge. A sixth "fund" has no
// contract: dead-lettered, a fault of its own, stale in the answer. The
// supplies are made up for the test.
func TestSourceOnSimulatedChain(t *testing.T) {
	sim := chaintest.New(t)
	art, err := chaintest.LoadArtifact("TestFundToken", fundtest.ABIJSON, fundtest.BinHex)
	if err != nil {
		t.Fatal(err)
	}
	owner := sim.Accounts[0]
	holder := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	type tok struct {
		symbol   string
		decimals int64
		supply   int64
	}
	toks := []tok{{"BUIDL", 6, 2_500_000_000}, {"OUSG", 18, 500_000}, {"USDY", 18, 600_000_000}, {"USTB", 6, 7_000_000}, {"USYC", 6, 1_000_000_000}}
	var funds []tokenfunds.Fund
	for _, k := range toks {
		addr := sim.Deploy(t, owner, art, k.symbol+" test", k.symbol, uint8(k.decimals))
		sim.Transact(t, owner, &addr, fundtest.Mint(holder, units(k.supply, k.decimals)))
		funds = append(funds, tokenfunds.Fund{Symbol: k.symbol, Name: k.symbol + " test", Issuer: "test", Chain: "ethereum", Token: addr})
	}
	funds = append(funds, tokenfunds.Fund{Symbol: "NOCODE", Name: "no contract", Chain: "ethereum", Token: common.HexToAddress("0x00000000000000000000000000000000000000bb")})

	clk := clock.NewFake(time.Now())
	run, _ := ratesfeedtest.Runner(clk)
	reader, err := run.ChainReader(ratesfeedtest.ChainConfig(sim.Config("ethereum")), "mi-test")
	if err != nil {
		t.Fatal(err)
	}
	src := tokenfunds.NewSource("tokenfunds:ethereum", "ethereum", funds, reader, poll.Every(time.Hour), run)
	rd := ratesfeedtest.Read(t, src)
	// A poll gives five supplies and NOCODE's dead letter, and its fault
	// when the streak starts (not again within the hour).
	take := func(withFault bool) (supplies []*schemas.RatesRecord, faults []*schemas.RatesRecord) {
		n := 5 + 1
		if withFault {
			n++
		}
		recs, dead := ratesfeedtest.Split(t, rd.Take(t, n, 20*time.Second))
		if len(dead) != 1 || !strings.Contains(dead[0].Reason, "malformed return data") {
			t.Fatalf("dead letters %+v", dead)
		}
		for _, r := range recs {
			if r.GetFundSupply() != nil {
				supplies = append(supplies, r)
			} else {
				faults = append(faults, r)
			}
		}
		return supplies, faults
	}
	first, faults := take(true)
	if len(first) != 5 || len(faults) != 1 || faults[0].GetFault().Scope != "tokenfunds:ethereum:NOCODE" {
		t.Fatalf("%d supplies, faults %v", len(first), faults)
	}
	for i, r := range first {
		f := r.GetFundSupply()
		if f.Symbol != toks[i].symbol || f.Decimals != uint32(toks[i].decimals) || f.TotalSupplyRaw != units(toks[i].supply, toks[i].decimals).String() ||
			f.SnapshotTime != f.BlockTime-f.BlockTime%3600 {
			t.Fatalf("%v", f)
		}
	}

	// 24 hours later, BUIDL's supply is up 1 %.
	buidl := funds[0].Token
	if err := sim.Backend.AdjustTime(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	sim.Transact(t, owner, &buidl, fundtest.Mint(holder, units(25_000_000, 6)))
	ratesfeedtest.Advance(t, clk)
	second, _ := take(false)
	if second[0].GetFundSupply().SnapshotTime != first[0].GetFundSupply().SnapshotTime+24*3600 {
		t.Fatalf("snapshots %d and %d are not 24 h apart", first[0].GetFundSupply().SnapshotTime, second[0].GetFundSupply().SnapshotTime)
	}

	var vf []ratesview.Fund
	for _, f := range funds {
		vf = append(vf, ratesview.Fund{Symbol: f.Symbol, Name: f.Name, Issuer: f.Issuer, Chain: f.Chain, Token: strings.ToLower(f.Token.Hex())})
	}
	v := ratesview.New(ratesview.Config{Funds: vf})
	for _, r := range append(append(first, faults...), second...) {
		if err := v.Apply(r); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Unix(second[0].GetFundSupply().BlockTime+60, 0)
	a, err := v.TokenizedTreasuries(now)
	if err != nil {
		t.Fatal(err)
	}
	b := a.Funds[0]
	if *b.Supply != 2_525_000_000 || *b.Decimals != 6 || *b.Change24hPercent != 1 {
		t.Fatalf("BUIDL %+v", b)
	}
	if o := a.Funds[1]; *o.Supply != 500_000 || *o.Decimals != 18 || *o.Change24hPercent != 0 {
		t.Fatalf("OUSG %+v", o)
	}
	if n := a.Funds[5]; !n.Stale || n.Supply != nil {
		t.Fatalf("NOCODE %+v", n)
	}
	// Mean of +1 % and four 0 %: +0.2 % per day, NEUTRAL.
	if a.Aggregate.Funds24h != 5 || *a.Aggregate.Change24hPercent != 0.2 || *a.Gauge != "NEUTRAL" {
		t.Fatalf("aggregate %+v %v", a.Aggregate, *a.Gauge)
	}
}
