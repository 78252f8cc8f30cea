package ratesview

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/marketintel/mi/schemas"
)

var testFunds = []Fund{
	{Symbol: "BUIDL", Name: "BlackRock USD Institutional Digital Liquidity Fund", Issuer: "BlackRock / Securitize", Chain: "ethereum", Token: "0x7712c34205737192402172409a8f7ccef8aa2aec"},
	{Symbol: "OUSG", Name: "Ondo Short-Term US Government Treasuries", Issuer: "Ondo Finance", Chain: "ethereum", Token: "0x1b19c19393e2d034d8ff31ff34c81252fcbbee92"},
	{Symbol: "USTB", Name: "Superstate Short Duration US Government Securities Fund", Issuer: "Superstate", Chain: "ethereum", Token: "0x43415eb6ff9db7e26a15b704e7a3edce97d31c4e"},
}

// snap is a supply snapshot of fund f at hour (RFC 3339), raw supply and
// decimals; the block is 12 s into the hour.
func snap(f Fund, hour, raw string, decimals uint32) *schemas.RatesRecord {
	t := ns(hour) / 1e9
	return rec(hour, &schemas.FundSupply{Symbol: f.Symbol, Chain: f.Chain, Token: f.Token, TotalSupplyRaw: raw, Decimals: decimals,
		BlockNumber: uint64(t / 12), BlockTime: t + 12, SnapshotTime: t})
}

func TestTokenizedTreasuries(t *testing.T) {
	v := New(Config{Funds: testFunds})
	if _, err := v.TokenizedTreasuries(at("2024-10-11T12:00:00Z")); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("before any snapshot: %v", err)
	}
	buidl, ousg, ustb := testFunds[0], testFunds[1], testFunds[2]
	mustApply(t, v,
		// BUIDL: 6 decimals, +1 % over 24 h, +2 % over 7 days.
		snap(buidl, "2024-10-11T12:00:00Z", "2525000000000000", 6),
		snap(buidl, "2024-10-10T12:00:00Z", "2500000000000000", 6),
		snap(buidl, "2024-10-04T12:00:00Z", "2475490196078431", 6),
		// OUSG: 18 decimals, the 24 h base missing: the snapshot 2 h earlier is used; -0.2 %.
		snap(ousg, "2024-10-11T12:00:00Z", "499000000000000000000000", 18),
		snap(ousg, "2024-10-10T10:00:00Z", "500000000000000000000000", 18),
		snap(ousg, "2024-10-10T09:00:00Z", "400000000000000000000000", 18), // too early for the 24 h change
		// USTB: only the newest snapshot.
		snap(ustb, "2024-10-11T12:00:00Z", "7000000000000", 6),
	)
	a, err := v.TokenizedTreasuries(at("2024-10-11T12:30:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, f := range a.Funds {
		s := fmt.Sprintf("%s supply=%v dec=%d snap=%s", f.Symbol, *f.Supply, *f.Decimals, *f.SnapshotTime)
		if f.Change24hPercent != nil {
			s += fmt.Sprintf(" 24h=%.6f@%s", *f.Change24hPercent, *f.Base24hTime)
		}
		if f.Change7dPercent != nil {
			s += fmt.Sprintf(" 7d=%.6f@%s", *f.Change7dPercent, *f.Base7dTime)
		}
		got = append(got, s)
	}
	want := []string{
		"BUIDL supply=2.525e+09 dec=6 snap=2024-10-11T12:00:00.000Z 24h=1.000000@2024-10-10T12:00:00.000Z 7d=2.000000@2024-10-04T12:00:00.000Z",
		"OUSG supply=499000 dec=18 snap=2024-10-11T12:00:00.000Z 24h=-0.200000@2024-10-10T10:00:00.000Z",
		"USTB supply=7e+06 dec=6 snap=2024-10-11T12:00:00.000Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	// Equal-weight mean of +1 % and -0.2 %: +0.4 %/day, NEUTRAL.
	if a.Aggregate.Funds24h != 2 || a.Aggregate.Funds7d != 1 || *a.Gauge != "NEUTRAL" {
		t.Fatalf("aggregate %+v gauge %v", a.Aggregate, *a.Gauge)
	}
	nearly(t, "aggregate 24h", a.Aggregate.Change24hPercent, 0.4)
	// USTB grows 5 %: the mean passes +0.5 %.
	mustApply(t, v, snap(ustb, "2024-10-10T12:00:00Z", "6666666666667", 6))
	a, _ = v.TokenizedTreasuries(at("2024-10-11T12:30:00Z"))
	if *a.Gauge != "RISK_OFF_INFLOW" || a.Aggregate.Funds24h != 3 {
		t.Fatalf("gauge %v %+v", *a.Gauge, a.Aggregate)
	}
	// The chain read fails after the last snapshot: every fund is stale,
	// no gauge.
	mustApply(t, v, rec("2024-10-11T13:00:05Z", &schemas.RatesFault{Scope: schemas.FundScope("ethereum", ""), Reason: "rpc error: timeout", FirstFailureNs: ns("2024-10-11T13:00:05Z")}))
	a, _ = v.TokenizedTreasuries(at("2024-10-11T13:01:00Z"))
	if a.Gauge != nil || !a.Funds[0].Stale || a.Funds[0].StaleReason != "rpc error: timeout" || a.Funds[0].Supply == nil {
		t.Fatalf("%+v", a)
	}
}

// TestFundSnapshotChoice: a snapshot hour read twice keeps the read
// closest to the hour; history older than 8 days before the newest is
// dropped whatever the order.
func TestFundSnapshotChoice(t *testing.T) {
	f := testFunds[0]
	early := snap(f, "2024-10-11T12:00:00Z", "100", 6)
	late := rec("2024-10-11T12:40:00Z", &schemas.FundSupply{Symbol: f.Symbol, Chain: f.Chain, Token: f.Token, TotalSupplyRaw: "200", Decimals: 6,
		BlockNumber: early.GetFundSupply().BlockNumber + 200, BlockTime: early.GetFundSupply().BlockTime + 2400, SnapshotTime: early.GetFundSupply().SnapshotTime})
	old := snap(f, "2024-10-01T12:00:00Z", "50", 6)
	for _, order := range [][]*schemas.RatesRecord{{early, late, old}, {late, old, early}, {old, late, early}} {
		v := New(Config{Funds: testFunds[:1]})
		mustApply(t, v, order...)
		a, err := v.TokenizedTreasuries(at("2024-10-11T12:50:00Z"))
		if err != nil || *a.Funds[0].SupplyRaw != "100" || len(v.funds["ethereum|BUIDL"].snaps) != 1 {
			t.Fatalf("%v %+v %d snapshots", err, a.Funds[0], len(v.funds["ethereum|BUIDL"].snaps))
		}
	}
}
