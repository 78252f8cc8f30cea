package rates

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestRayToAPRAndAPY uses the rates of the recorded getReserveData of WETH
// on Polygon (fixture defi/aave_v3_polygon_Pool_getReserveData_WETH_*:
// words 2 and 4 in decimal); the expected APR and APY were computed with
// 60-digit decimal arithmetic: (1 + APR/31536000)^31536000 − 1.
func TestRayToAPRAndAPY(t *testing.T) {
	f := func(rateRay string, apr, apy float64) {
		t.Helper()
		got, ok := RayToAPRPercent(rateRay)
		if !ok || !near(got, apr, 1e-15) {
			t.Fatalf("RayToAPRPercent(%s) = %v, %v; want %v", rateRay, got, ok, apr)
		}
		if y := APYPercent(got); !near(y, apy, 1e-12) {
			t.Fatalf("APYPercent(%v) = %v, want %v", got, y, apy)
		}
	}
	f("2815387323021300469652266", 0.2815387323021300469652266, 0.28193542477209503067425746815)
	f("22059241931586727924925162", 2.2059241931586727924925162, 2.23043459527676735971797319170)
	f("0", 0, 0)
	f("1000000000000000000000000000", 100, 171.828178536097082126) // 100 % APR compounded every second (60-digit decimal)
	for _, bad := range []string{"", "-1", "1e27", "0x10", " 5"} {
		if _, ok := RayToAPRPercent(bad); ok {
			t.Fatalf("RayToAPRPercent(%q) accepted", bad)
		}
	}
}

func TestSlopesAndBreakeven(t *testing.T) {
	f := func(short, long, want float64) {
		t.Helper()
		if got := SlopeBp(short, long); got != want {
			t.Fatalf("SlopeBp(%v, %v) = %v, want %v", short, long, got, want)
		}
	}
	// 2024-10-10 (fixture treasury/daily_treasury_par_yield_curve_2024_asPublished.csv):
	// 2Y 3.98, 10Y 4.09, 3M 4.75, 5Y 3.91, 30Y 4.38.
	f(3.98, 4.09, 11)  // 2s10s
	f(4.75, 4.09, -66) // 3m10y, inverted
	f(3.91, 4.38, 47)  // 5s30s
	f(4.75, 3.98, -77) // 3m2y, inverted
	f(1, 1, 0)
	if got := ChangeBp(4.06, 4.09); got != 3 {
		t.Fatalf("ChangeBp = %v", got)
	}
	if got := DiffBp(-69, -66); got != 3 {
		t.Fatalf("DiffBp = %v", got)
	}
	if got := BreakevenPercent(4.09, 1.9); got != 2.19 {
		t.Fatalf("BreakevenPercent = %v", got)
	}
	if got := BreakevenPercent(1.5, -0.25); got != 1.75 {
		t.Fatalf("BreakevenPercent with a negative real yield = %v", got)
	}
}

func TestBillAPYAndSpread(t *testing.T) {
	f := func(y float64, days int, want float64) {
		t.Helper()
		if got := BillAPYPercent(y, days); !near(got, want, 1e-12) {
			t.Fatalf("BillAPYPercent(%v, %d) = %v, want %v", y, days, got, want)
		}
	}
	f(5, 91, 5.094622192812315)
	f(4.75, 91, 4.835360928842625)
	f(0, 91, 0)
	f(5, 365, 5)
	if got := SpreadBp(5.25, 5.094622192812315); !near(got, 15.5377807187685, 1e-9) {
		t.Fatalf("SpreadBp = %v", got)
	}
}

func TestSignals(t *testing.T) {
	s := func(bp float64, want string) {
		t.Helper()
		if got := SpreadSignal(bp); got != want {
			t.Fatalf("SpreadSignal(%v) = %s, want %s", bp, got, want)
		}
	}
	s(50, DefiPremium)
	s(120, DefiPremium)
	s(49.999, InLine)
	s(0, InLine)
	s(-49.999, InLine)
	s(-50, TreasuryPremium)
	s(-300, TreasuryPremium)
	g := func(pct float64, want string) {
		t.Helper()
		if got := Gauge(pct); got != want {
			t.Fatalf("Gauge(%v) = %s, want %s", pct, got, want)
		}
	}
	g(0.5, RiskOffInflow)
	g(3, RiskOffInflow)
	g(0.4999, Neutral)
	g(0, Neutral)
	g(-0.4999, Neutral)
	g(-0.5, RiskOnOutflow)
}

func TestAmountsAndChanges(t *testing.T) {
	f := func(raw string, dec uint32, want float64, ok bool) {
		t.Helper()
		got, gotOK := TokenAmount(raw, dec)
		if gotOK != ok || got != want {
			t.Fatalf("TokenAmount(%q, %d) = %v, %v; want %v, %v", raw, dec, got, gotOK, want, ok)
		}
	}
	f("2500000000123456", 6, 2500000000.123456, true)
	f("1000000000000000000", 18, 1, true)
	f("0", 6, 0, true)
	f("-5", 6, 0, false)
	f("1.5", 6, 0, false)
	c := func(now, then, want float64, ok bool) {
		t.Helper()
		got, gotOK := ChangePercent(now, then)
		if gotOK != ok || got != want {
			t.Fatalf("ChangePercent(%v, %v) = %v, %v", now, then, got, gotOK)
		}
	}
	c(101, 100, 1, true)
	c(99.5, 100, -0.5, true)
	c(5, 0, 0, false)
	if v, ok := SharePercent(27703020000, 39731221000); !ok || !near(v, 69.7260726016952763, 1e-12) {
		t.Fatalf("indirect share of the 2023-11-08 10-year auction = %v", v) // SOURCES.md: 69.7 %
	}
	if _, ok := SharePercent(1, 0); ok {
		t.Fatal("share of nothing")
	}
}

func TestSeriesKey(t *testing.T) {
	f := func(kind, typ, term, orig, want string) {
		t.Helper()
		if got := SeriesKey(kind, typ, term, orig); got != want {
			t.Fatalf("SeriesKey(%s, %s, %s, %s) = %q, want %q", kind, typ, term, orig, got, want)
		}
	}
	f("Bill", "Bill", "13-Week", "26-Week", "Bill 13-Week") // a reopened 26-week bill
	f("Bill", "Bill", "6-Week", "", "Bill 6-Week")
	f("CMB", "Bill", "42-Day", "", "CMB 42-Day")
	f("Note", "Note", "10-Year", "10-Year", "Note 10-Year")
	f("Note", "Note", "9-Year 10-Month", "10-Year", "Note 10-Year")
	f("Bond", "Bond", "19-Year 10-Month", "", "Bond 20-Year") // upcoming_auctions has no original term
	f("Bond", "Bond", "29-Year 11-Month", "", "Bond 30-Year")
	f("TIPS", "Note", "4-Year 6-Month", "", "TIPS 5-Year")
	f("FRN", "Note", "1-Year 10-Month", "", "FRN 2-Year")
	f("Note", "Note", "7-Year", "", "Note 7-Year")
	f("Note", "Note", "odd term", "", "Note odd term")
}

func BenchmarkRayToAPY(b *testing.B) {
	for b.Loop() {
		apr, _ := RayToAPRPercent("22059241931586727924925162")
		_ = APYPercent(apr)
	}
}
