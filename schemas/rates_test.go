package schemas

import (
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

func TestValidateRates(t *testing.T) {
	const read = int64(1_728_597_600e9)
	ok := func(body isRatesRecord_Body) *RatesRecord {
		return &RatesRecord{Source: "s", ReadTimeNs: read, Body: body}
	}
	curve := func(date string, points ...*CurvePoint) isRatesRecord_Body {
		return &RatesRecord_Curve{Curve: &YieldCurve{Kind: CurveKind_CURVE_KIND_PAR_NOMINAL, Date: date, Points: points}}
	}
	f := func(r *RatesRecord, phrase string) {
		t.Helper()
		err := ValidateRates(r)
		if phrase == "" {
			if err != nil {
				t.Fatalf("%v refused: %v", r, err)
			}
			return
		}
		if err == nil || !errors.Is(err, ErrInvalidRates) || !strings.Contains(err.Error(), phrase) {
			t.Fatalf("%v: error %v, want %q", r, err, phrase)
		}
	}
	p := func(tenor string, v float64) *CurvePoint { return &CurvePoint{Tenor: tenor, Percent: v} }
	f(nil, "missing")
	f(&RatesRecord{ReadTimeNs: read, Body: curve("2024-10-10", p("2Y", 4))}, "missing source")
	f(&RatesRecord{Source: "s", Body: curve("2024-10-10", p("2Y", 4))}, "bad read time")
	f(ok(nil), "no body")
	f(ok(curve("2024-10-10", p("2Y", 3.98), p("10Y", 4.09))), "")
	f(ok(curve("2024-10-10", p("10Y", 4.09), p("2Y", 3.98))), "tenors out of order")
	f(ok(curve("2024-10-10", p("2Y", 3.98), p("2Y", 3.98))), "tenors out of order")
	f(ok(curve("2024-10-10", p("9Y", 1))), "unknown tenor")
	f(ok(curve("2024-10-10", p("2Y", math.NaN()))), "bad rate")
	f(ok(curve("2024-10-10", p("2Y", 51))), "bad rate")
	f(ok(curve("2024-10-10", p("2Y", -1.2))), "") // real yields go negative
	f(ok(curve("10/10/2024", p("2Y", 4))), "bad date")
	f(ok(curve("2024-02-30", p("2Y", 4))), "bad date")
	f(ok(curve("2024-10-10")), "empty curve")
	f(ok(&RatesRecord_Overnight{Overnight: &OvernightRate{Kind: OvernightRateKind_OVERNIGHT_RATE_SOFR, Date: "2024-06-06", Percent: 5.33}}), "")
	f(ok(&RatesRecord_Overnight{Overnight: &OvernightRate{Date: "2024-06-06", Percent: 5.33}}), "bad overnight rate kind")
	inf := math.Inf(1)
	f(ok(&RatesRecord_Overnight{Overnight: &OvernightRate{Kind: OvernightRateKind_OVERNIGHT_RATE_EFFR, Date: "2024-06-06", Percent: 5, Volume: &inf}}), "bad rate detail")
	l := func(ray string) *RatesRecord {
		return ok(&RatesRecord_Lending{Lending: &LendingRate{Protocol: "aave-v3", Chain: "base", Asset: "0x1", LiquidityRateRay: ray,
			VariableBorrowRateRay: "0", LiquidityIndexRay: "1", VariableBorrowIndexRay: "1", BlockTime: 1}})
	}
	f(l("2815387323021300469652266"), "")
	f(l("-1"), "bad ray")
	f(l("01"), "bad ray")
	f(l("1e27"), "bad ray")
	f(l(""), "bad ray")
	fund := func(raw string, dec uint32, snap int64) *RatesRecord {
		return ok(&RatesRecord_FundSupply{FundSupply: &FundSupply{Symbol: "BUIDL", Chain: "ethereum", Token: "0x1", TotalSupplyRaw: raw, Decimals: dec, SnapshotTime: snap}})
	}
	f(fund("0", 6, 3600), "")
	f(fund("x", 6, 3600), "bad total supply")
	f(fund("1", 37, 3600), "bad decimals")
	f(fund("1", 6, 3601), "bad snapshot time")
	au := func(status AuctionStatus, date string) *RatesRecord {
		return ok(&RatesRecord_Auction{Auction: &TreasuryAuction{Cusip: "912797SL2", SecurityType: "Bill", SecurityTerm: "13-Week", Status: status, AuctionDate: date}})
	}
	f(au(AuctionStatus_AUCTION_STATUS_AUCTIONED, "2026-01-05"), "")
	f(au(AuctionStatus_AUCTION_STATUS_UNSPECIFIED, "2026-01-05"), "bad auction status")
	f(au(AuctionStatus_AUCTION_STATUS_ANNOUNCED, ""), "bad date")
	f(ok(&RatesRecord_Fault{Fault: &RatesFault{Scope: "aave-v3:base"}}), "fault without scope or reason")
}

func TestRatesKey(t *testing.T) {
	f := func(body isRatesRecord_Body, want string) {
		t.Helper()
		if got := RatesKey(&RatesRecord{Body: body}); got != want {
			t.Fatalf("RatesKey = %q, want %q", got, want)
		}
	}
	f(&RatesRecord_Curve{Curve: &YieldCurve{Kind: CurveKind_CURVE_KIND_PAR_REAL, Date: "2024-07-30"}}, "curve|par_real|2024-07-30")
	f(&RatesRecord_Overnight{Overnight: &OvernightRate{Kind: OvernightRateKind_OVERNIGHT_RATE_ESTR, Date: "2024-06-06"}}, "overnight|estr|2024-06-06")
	f(&RatesRecord_Lending{Lending: &LendingRate{Protocol: "aave-v3", Chain: "base", Asset: "0xa"}}, "lending|aave-v3|base|0xa")
	f(&RatesRecord_FundSupply{FundSupply: &FundSupply{Chain: "ethereum", Symbol: "BUIDL", SnapshotTime: 3600}}, "fund|ethereum|BUIDL|3600")
	f(&RatesRecord_Auction{Auction: &TreasuryAuction{Cusip: "912797SL2", AuctionDate: "2026-01-05"}}, "auction|912797SL2|2026-01-05")
	f(&RatesRecord_Fault{Fault: &RatesFault{Scope: LendingScope("aave-v3", "base")}}, "fault|aave-v3:base")
	f(nil, "")
	if FundScope("ethereum", "") != "tokenfunds:ethereum" || FundScope("ethereum", "BUIDL") != "tokenfunds:ethereum:BUIDL" {
		t.Fatal("fund scopes")
	}
	if TenorIndex("1.5M") != 1 || TenorIndex("30Y") != len(Tenors)-1 || TenorIndex("9Y") != -1 {
		t.Fatal("tenor index")
	}
}

// FuzzRatesRecord decodes arbitrary bytes as a record: validation and the
// key never panic.
func FuzzRatesRecord(f *testing.F) {
	f.Add([]byte{0x0a, 0x01, 's', 0x18, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		var r RatesRecord
		if err := protoUnmarshal(b, &r); err != nil {
			return
		}
		_ = ValidateRates(&r)
		_ = RatesKey(&r)
	})
}

func protoUnmarshal(b []byte, r *RatesRecord) error { return proto.Unmarshal(b, r) }
