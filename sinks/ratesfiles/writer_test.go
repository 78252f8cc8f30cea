package ratesfiles

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/parquet"
)

func ns(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func rec(read string, body any) *schemas.RatesRecord {
	r := &schemas.RatesRecord{Source: "test", Url: "https://example.test/", ReadTimeNs: ns(read), Publisher: "test publisher"}
	switch b := body.(type) {
	case *schemas.YieldCurve:
		r.Body = &schemas.RatesRecord_Curve{Curve: b}
	case *schemas.OvernightRate:
		r.Body = &schemas.RatesRecord_Overnight{Overnight: b}
	case *schemas.LendingRate:
		r.Body = &schemas.RatesRecord_Lending{Lending: b}
	case *schemas.FundSupply:
		r.Body = &schemas.RatesRecord_FundSupply{FundSupply: b}
	case *schemas.TreasuryAuction:
		r.Body = &schemas.RatesRecord_Auction{Auction: b}
	case *schemas.RatesFault:
		r.Body = &schemas.RatesRecord_Fault{Fault: b}
	}
	return r
}

func curve(date string, tenYear float64) *schemas.YieldCurve {
	return &schemas.YieldCurve{Kind: schemas.CurveKind_CURVE_KIND_PAR_NOMINAL, Date: date, Points: []*schemas.CurvePoint{
		{Tenor: "3M", Percent: 4.75}, {Tenor: "2Y", Percent: 3.98}, {Tenor: "10Y", Percent: tenYear}}}
}

// records is a day of every dataset: 2024-10-10's curve (fixture values)
// read twice and revised once, a SOFR fixing, two reserve reads, a fund
// snapshot, an auction announced then auctioned, and a fault.
func records() []*schemas.RatesRecord {
	l := func(block uint64, t string) *schemas.LendingRate {
		return &schemas.LendingRate{Protocol: "aave-v3", Chain: "polygon", ChainId: 137, Pool: "0x794a61358d6845594f94dc1db02a252b5b4814ad",
			Asset: "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359", AssetSymbol: "USDC", LiquidityRateRay: "2815387323021300469652266",
			VariableBorrowRateRay: "22059241931586727924925162", LiquidityIndexRay: "1004163000000000000000000000", VariableBorrowIndexRay: "1015000000000000000000000000",
			LastUpdateTime: ns(t)/1e9 - 60, BlockNumber: block, BlockTime: ns(t) / 1e9, Active: true, Decimals: 6}
	}
	ann := &schemas.TreasuryAuction{Cusip: "912797SN8", SecurityType: "Bill", SecurityTerm: "13-Week", Kind: "Bill", Reopening: true,
		Status: schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED, AuctionDate: "2024-10-10", OfferingAmount: i64(89000000000)}
	res := &schemas.TreasuryAuction{Cusip: "912797SN8", SecurityType: "Bill", SecurityTerm: "13-Week", OriginalSecurityTerm: "26-Week", Kind: "Bill", Reopening: true,
		Status: schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED, AuctionDate: "2024-10-10", OfferingAmount: i64(89000000000), HighDiscountRate: f64(3.58),
		HighInvestmentRate: f64(3.663), BidToCover: f64(2.9), CompetitiveAccepted: i64(85196122700), IndirectAccepted: i64(52618322700),
		DirectAccepted: i64(5416350000), PrimaryDealerAccepted: i64(27161450000)}
	return []*schemas.RatesRecord{
		rec("2024-10-10T22:00:00Z", curve("2024-10-10", 4.09)),
		rec("2024-10-10T22:10:00Z", curve("2024-10-10", 4.09)), // read again: same version
		rec("2024-10-11T09:00:00Z", curve("2024-10-10", 4.10)), // revised
		rec("2024-10-10T13:00:00Z", &schemas.OvernightRate{Kind: schemas.OvernightRateKind_OVERNIGHT_RATE_SOFR, Date: "2024-10-10", Percent: 4.82, Volume: f64(2212)}),
		rec("2024-10-10T11:55:00Z", l(62_000_000, "2024-10-10T11:54:58Z")),
		rec("2024-10-10T12:00:00Z", l(62_000_150, "2024-10-10T11:59:58Z")),
		rec("2024-10-10T12:00:10Z", &schemas.FundSupply{Symbol: "BUIDL", Chain: "ethereum", Token: "0x7712c34205737192402172409a8f7ccef8aa2aec",
			TotalSupplyRaw: "2525000000123456", Decimals: 6, BlockNumber: 20_900_000, BlockTime: ns("2024-10-10T12:00:11Z") / 1e9, SnapshotTime: ns("2024-10-10T12:00:00Z") / 1e9}),
		rec("2024-10-07T12:00:00Z", ann),
		rec("2024-10-10T17:00:00Z", res),
		rec("2024-10-10T12:00:00Z", &schemas.RatesFault{Scope: "aave-v3:base", Reason: "rpc error", FirstFailureNs: ns("2024-10-10T12:00:00Z")}),
	}
}

func write(t *testing.T, root string, rs []*schemas.RatesRecord, flushEvery int) {
	t.Helper()
	w := New(root)
	for i, r := range rs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
		if flushEvery > 0 && i%flushEvery == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Pending() != 0 {
		t.Fatalf("%d rows still pending", w.Pending())
	}
}

func TestWriteAndReadBack(t *testing.T) {
	root := t.TempDir()
	write(t, root, records(), 0)
	curves, err := parquet.ReadRows[CurveRow](datasets.RatesFile(root, datasets.RatesCurves, "2024-10-10"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range curves {
		got = append(got, fmt.Sprintf("%s %s %v %s", time.UnixMicro(c.ReadAt).UTC().Format(time.RFC3339), c.Tenor, c.YieldPercent, c.Curve))
	}
	want := []string{
		"2024-10-10T22:00:00Z 3M 4.75 par_nominal", "2024-10-10T22:00:00Z 2Y 3.98 par_nominal", "2024-10-10T22:00:00Z 10Y 4.09 par_nominal",
		"2024-10-11T09:00:00Z 3M 4.75 par_nominal", "2024-10-11T09:00:00Z 2Y 3.98 par_nominal", "2024-10-11T09:00:00Z 10Y 4.1 par_nominal",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("curves:\n%s", strings.Join(got, "\n"))
	}
	lending, err := parquet.ReadRows[LendingRow](datasets.RatesFile(root, datasets.RatesLending, "2024-10-10"))
	if err != nil || len(lending) != 2 || lending[0].BlockNumber != 62_000_000 || lending[1].SupplyAPRPercent != 0.2815387323021300469652266 {
		t.Fatalf("%v %+v", err, lending)
	}
	auctions, err := parquet.ReadRows[AuctionRow](datasets.RatesFile(root, datasets.RatesAuctions, "2024-10-10"))
	if err != nil || len(auctions) != 2 || auctions[0].Status != "ANNOUNCED" || auctions[1].Status != "AUCTIONED" ||
		*auctions[1].IndirectAccepted != 52618322700 || auctions[0].HighDiscountRate != nil || auctions[1].Series != "Bill 13-Week" {
		t.Fatalf("%v %+v", err, auctions)
	}
	funds, err := parquet.ReadRows[FundSupplyRow](datasets.RatesFile(root, datasets.RatesFundSupply, "2024-10-10"))
	if err != nil || len(funds) != 1 || funds[0].Supply != 2525000000.123456 {
		t.Fatalf("%v %+v", err, funds)
	}
	if _, err := os.Stat(filepath.Join(root, datasets.KindRates, "date=2024-10-10", "faults.parquet")); !os.IsNotExist(err) {
		t.Fatal("faults were written")
	}
}

// TestReplayGivesSameBytes: the same records written again, in another
// order, with duplicates and flushes in between, give identical files.
func TestReplayGivesSameBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	rs := records()
	write(t, a, rs, 0)
	rev := append([]*schemas.RatesRecord(nil), rs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	write(t, b, append(rev, rs[:4]...), 2)
	write(t, b, rs, 1) // the whole topic replayed onto the same files
	files, _ := filepath.Glob(filepath.Join(a, datasets.KindRates, "date=*", "*.parquet"))
	if len(files) != 5 {
		t.Fatalf("files %v", files)
	}
	for _, fa := range files {
		fb := filepath.Join(b, strings.TrimPrefix(fa, a))
		ba, _ := os.ReadFile(fa)
		bb, err := os.ReadFile(fb)
		if err != nil || sha256.Sum256(ba) != sha256.Sum256(bb) {
			t.Fatalf("%s differs after a replay (%v)", strings.TrimPrefix(fa, a), err)
		}
	}
}

// TestDuckDBReadsTheDocumentedColumns opens the files as `mi sql` does
// (datasets.RatesViews) and checks every view's columns and DuckDB types
// against datasets.Rates*Columns, then computes a slope in SQL.
func TestDuckDBReadsTheDocumentedColumns(t *testing.T) {
	root := t.TempDir()
	write(t, root, records(), 0)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, v := range datasets.RatesViews(root) {
		if _, err := db.Exec(v.CreateSQL()); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		rows, err := db.Query("DESCRIBE " + v.Name)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var name, typ string
			var null, key, def, extra sql.NullString
			if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
				t.Fatal(err)
			}
			got = append(got, name+" "+typ)
		}
		rows.Close()
		var want []string
		for _, c := range v.Columns {
			want = append(want, c.Name+" "+c.Type)
		}
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Fatalf("%s:\ngot  %s\nwant %s", v.Name, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	var slope float64
	err = db.QueryRow(`SELECT 100 * (max(yield_percent) FILTER (tenor = '10Y') - max(yield_percent) FILTER (tenor = '2Y'))
		FROM rates_curves WHERE date = DATE '2024-10-10' AND read_at = (SELECT max(read_at) FROM rates_curves)`).Scan(&slope)
	if err != nil || fmt.Sprintf("%.6f", slope) != "12.000000" {
		t.Fatalf("2s10s of the revised curve: %v %v", slope, err)
	}
}
