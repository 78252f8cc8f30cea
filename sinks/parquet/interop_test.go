package parquet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/sinks/parquet"
)

// TestHyparquetReadsDayFiles reads a day file of every dataset with
// hyparquet under node (a reader nobody here wrote; installed by
// scripts/install.d/parquet.sh) and compares every row and column with
// what we wrote.
func TestHyparquetReadsDayFiles(t *testing.T) {
	dir, err := filepath.Abs("../../internal/interop/parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "hyparquet")); err != nil {
		t.Fatalf("hyparquet is not installed: run scripts/install.d/parquet.sh (%v)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	root, _ := backfill(t)
	d := "2026-03-03"
	file := func(p string) string { return filepath.Join(p, datasets.DayFileName) }
	check(t, dir, file(datasets.CandleDir(root, "1m", d, "sim_uniswap")), []parquet.CandleRow(nil))
	check(t, dir, file(datasets.TradeDir(root, d, "sim_uniswap")), []parquet.TradeRow(nil))
	check(t, dir, file(datasets.SignalDir(root, "15m", d)), []parquet.SignalRow(nil))
	check(t, dir, file(datasets.SignalChangeDir(root, d)), []parquet.SignalChangeRow(nil))
}

func check[T any](t *testing.T, dir, path string, _ []T) {
	t.Helper()
	ours, err := parquet.ReadRows[T](path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "read.mjs"), path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.mjs %s: %v", path, err)
	}
	var theirs []map[string]any
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.UseNumber()
	if err := dec.Decode(&theirs); err != nil {
		t.Fatal(err)
	}
	if len(ours) == 0 || len(theirs) != len(ours) {
		t.Fatalf("%s: hyparquet read %d rows, we wrote %d", path, len(theirs), len(ours))
	}
	bad := 0
	for i := range ours {
		want := rowMap(reflect.ValueOf(ours[i]))
		if len(theirs[i]) != len(want) {
			t.Fatalf("%s row %d: hyparquet columns %v, want %v", path, i, theirs[i], want)
		}
		for k, w := range want {
			if g := jsonString(theirs[i][k]); g != w {
				if bad++; bad <= 5 {
					t.Errorf("%s row %d column %s: hyparquet %q, we wrote %q", filepath.Base(filepath.Dir(path)), i, k, g, w)
				}
			}
		}
	}
}

// rowMap renders a row as column name → canonical string: integers and
// timestamps in decimal, doubles in the shortest form that round-trips.
func rowMap(v reflect.Value) map[string]string {
	out := map[string]string{}
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("parquet"), ",")
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int64:
			out[name] = strconv.FormatInt(f.Int(), 10)
		case reflect.Float64:
			out[name] = strconv.FormatFloat(f.Float(), 'g', -1, 64)
		case reflect.Bool:
			out[name] = strconv.FormatBool(f.Bool())
		case reflect.String:
			out[name] = f.String()
		default:
			panic("BUG: column kind " + f.Kind().String())
		}
	}
	return out
}

func jsonString(v any) string {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return x.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "<null>"
	}
	return "<" + reflect.TypeOf(v).String() + ">"
}

// TestHyparquetReadsDictionaryFallback writes trades with more distinct
// wallets than a dictionary holds, so the wallet column chunk has
// dictionary pages then plain ones, and checks that the file says so and
// that hyparquet, DuckDB and both of our readers read every row.
func TestHyparquetReadsDictionaryFallback(t *testing.T) {
	dir, err := filepath.Abs("../../internal/interop/parquet")
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]parquet.TradeRow, 100_000)
	for i := range rows {
		rows[i] = parquet.TradeRow{EventTime: int64(i), Symbol: "ETHUSD", VenueKind: "dex", Chain: "ethereum",
			Side: "BUY", TradeID: fmt.Sprintf("0x%064x", i), Wallet: fmt.Sprintf("0x%040x", i*7919), Price: float64(i)}
	}
	path := filepath.Join(t.TempDir(), datasets.DayFileName)
	if err := parquet.WriteRows(path, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var encs []format.Encoding
	for _, c := range pf.Metadata().RowGroups[0].Columns {
		if c.MetaData.PathInSchema[0] == "wallet" {
			encs = c.MetaData.Encoding
		}
	}
	if !slices.Contains(encs, format.Plain) || !slices.Contains(encs, format.RLEDictionary) {
		t.Fatalf("wallet encodings %v, want dictionary pages then plain ones", encs)
	}
	got, err := parquet.ReadRows[parquet.TradeRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, rows) {
		t.Fatal("the column reader did not read back the rows written")
	}
	*parquet.GenericReads = true
	got, err = parquet.ReadRows[parquet.TradeRow](path)
	*parquet.GenericReads = false
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, rows) {
		t.Fatal("the generic reader did not read back the rows written")
	}
	check(t, dir, path, []parquet.TradeRow(nil))
	var n, distinct int
	var last string
	err = duck(t).QueryRow("SELECT count(*), count(DISTINCT wallet), max_by(wallet, event_time) FROM read_parquet(?)", path).Scan(&n, &distinct, &last)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(rows) || distinct != len(rows) || last != rows[len(rows)-1].Wallet {
		t.Fatalf("DuckDB read %d rows, %d wallets, last %q; want %d, %d, %q", n, distinct, last, len(rows), len(rows), rows[len(rows)-1].Wallet)
	}
}
