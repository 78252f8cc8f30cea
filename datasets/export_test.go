package datasets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func exportDay() ExportDay {
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	c := Candle{Time: t0, Symbol: "ETHUSD", Open: 1.5, High: 2, Low: 1, Close: 1.75, Volume: 1e-9, VolumeUSD: 1e12,
		BuyPressure: 50, VWAP: math.NaN(), TradeCount: 3, BuyCount: 1, SellCount: 1, UnknownSideCount: 1}
	c2 := c
	c2.Time = t0.Add(time.Minute)
	return ExportDay{Symbol: "ETHUSD", Date: "2026-01-05", Interval: "5m", RequestedInterval: "1m", Note: "coarser \"stored\"",
		Venues: []VenueDay{{Venue: "uni\x01swap", VenueKind: "onchain_dex", Chain: "ethereum", Candles: []Candle{c, c2}},
			{Venue: "raydium", VenueKind: "solana_dex", Chain: "solana", Candles: []Candle{c}}}}
}

func TestExportJSONIsValid(t *testing.T) {
	b := AppendJSON(nil, exportDay())
	var v struct {
		Note   string
		Venues []struct {
			Venue   string
			Candles []map[string]any
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if v.Note != `coarser "stored"` || v.Venues[0].Venue != "uni\x01swap" || len(v.Venues[0].Candles) != 2 ||
		v.Venues[0].Candles[0]["vwap"] != 0.0 || v.Venues[0].Candles[0]["volume"] != 1e-9 {
		t.Errorf("decoded %+v", v)
	}
}

func TestExportCSVParses(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, exportDay()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || len(recs[1]) != len(CSVHeader) || recs[1][0] != "2026-01-05T00:00:00Z" || recs[3][2] != "raydium" ||
		recs[1][5] != "5m" || recs[1][17] != "" || recs[1][11] != "1000000000000" || recs[1][10] != "1e-9" {
		t.Errorf("records %q", recs)
	}
	if CSVFileName("ETHUSD", "2026-01-05", "1m", "csv") != "ETHUSD_2026-01-05_1m.csv" {
		t.Error("file name")
	}
}

func TestScanCatalog(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{
		CandleDir(root, "1m", "2026-01-05", "uniswap"),
		CandleDir(root, "1m", "2026-01-04", "raydium"),
		Staged(root, CandleDir(root, "1m", "2026-01-06", "uniswap")),
		CandleDir(root, "1h", "2025-01-01", "coinbase"),
		filepath.Join(root, KindCandles, "interval=1m", "date=bad"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cat := ScanCatalog(root)
	if len(cat.Dates) != 4 || cat.Dates[0] != "2025-01-01" || cat.Dates[3] != "2026-01-06" || len(cat.Venues) != 3 {
		t.Errorf("catalog %+v", cat)
	}
	if len(cat.Resolutions) != 2 || cat.Resolutions[0] != (Resolution{"1m", "2026-01-04", "2026-01-06", 3}) ||
		cat.Resolutions[1].Interval != "1h" {
		t.Errorf("resolutions %+v", cat.Resolutions)
	}
	if empty := ScanCatalog(filepath.Join(root, "nope")); len(empty.Dates) != 0 {
		t.Errorf("empty root %+v", empty)
	}
}

// TestAppendCSVMatchesEncodingCSV checks AppendCSV byte for byte against
// encoding/csv writing the same records, with names that need quoting.
func TestAppendCSVMatchesEncodingCSV(t *testing.T) {
	d := exportDay()
	names := []string{"", "plain", "a,b", `say "x"`, "cr\rlf\n", " lead", "\tlead", `\.`, "\u00a0nbsp", "é,", "trail "}
	for i, n := range names {
		d.Venues[i%2].Venue = n
		d.Venues[(i+1)%2].Chain = n
		d.Symbol = names[(i+3)%len(names)]
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		if err := cw.Write(CSVHeader); err != nil {
			t.Fatal(err)
		}
		for _, v := range d.Venues {
			for _, c := range v.Candles {
				rec := []string{c.Time.UTC().Format(time.RFC3339), d.Symbol, v.Venue, v.VenueKind, v.Chain, d.Interval}
				for _, f := range []float64{c.Open, c.High, c.Low, c.Close, c.Volume, c.VolumeUSD, c.BuyVolume,
					c.SellVolume, c.BuyVolumeUSD, c.SellVolumeUSD, c.BuyPressure, c.VWAP} {
					rec = append(rec, formatFloat(f))
				}
				for _, n := range []int64{c.TradeCount, c.BuyCount, c.SellCount, c.UnknownSideCount} {
					rec = append(rec, strconv.FormatInt(n, 10))
				}
				if err := cw.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
		}
		cw.Flush()
		if got := AppendCSV(nil, d); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("name %q:\ngot  %q\nwant %q", n, got, want.Bytes())
		}
	}
}

// BenchmarkAppendCSV renders one venue-day of 1,440 candles.
func BenchmarkAppendCSV(b *testing.B) {
	d := exportDay()
	c := d.Venues[1].Candles[0]
	c.VWAP = 1234.5678
	d.Venues = d.Venues[1:]
	d.Venues[0].Candles = nil
	for i := range 1440 {
		c.Time = c.Time.Add(time.Minute)
		c.Close += float64(i) / 7
		d.Venues[0].Candles = append(d.Venues[0].Candles, c)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendCSV(buf[:0], d)
	}
}
