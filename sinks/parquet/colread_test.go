package parquet

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// readBoth writes rows with opts and reads them back with the column reader
// and with parquet-go's generic reader, in batches of batch rows.
func readBoth[T any](t *testing.T, rows []T, batch int, opts ...pq.WriterOption) (col, gen []T) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.parquet")
	var buf bytes.Buffer
	if err := encodeWith(&buf, rows, append(writeOptions(), opts...)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(generic bool) []T {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, n, columnar, err := openRowsAs[T](f, generic)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if columnar == generic {
			t.Fatalf("generic=%v but column reader used=%v", generic, columnar)
		}
		if n != int64(len(rows)) {
			t.Fatalf("%d rows in the file, wrote %d", n, len(rows))
		}
		var out []T
		b := make([]T, batch)
		for {
			k, err := r.Read(b)
			out = append(out, b[:k]...)
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				t.Fatal("Read returned no rows and no error")
			}
		}
	}
	return read(false), read(true)
}

// TestColumnReaderMatchesGenericReader writes every row type in small row
// groups and pages, with dictionaries that overflow into plain pages
// mid-chunk and with data page versions 1 and 2, and checks the column
// reader returns exactly the rows written, as parquet-go's reader does.
func TestColumnReaderMatchesGenericReader(t *testing.T) {
	const n = 5000
	candles := benchCandles(n)
	trades := benchTrades(n)
	for i := range trades {
		trades[i].Wallet = "0x" + strconv.FormatInt(int64(i*7919), 16)
		trades[i].Side = []string{"BUY", "SELL", "UNKNOWN"}[i%3]
		trades[i].Symbol = "S" + strconv.Itoa(i%300) // a dictionary of 300 entries
	}
	signals := make([]SignalRow, n)
	changes := make([]SignalChangeRow, n)
	for i := range signals {
		signals[i] = SignalRow{TS: int64(i) * 60e6, Symbol: "S" + strconv.Itoa(i%50), ID: "doc-" + strconv.Itoa(i),
			Price: float64(i) / 3, TradeCount: int64(i), Signal: []string{"BUY", "HOLD"}[i%2], BaselineReady: i%3 == 0,
			BaselineSamples: int64(i % 17), AlgorithmVersion: "v1"}
		changes[i] = SignalChangeRow{ChangedAt: int64(i) * 1e6, Symbol: "S" + strconv.Itoa(i%50), Window: "5m",
			DocumentID: "doc-" + strconv.Itoa(i), Price: float64(i), TradeCount: int64(i)}
	}
	for _, v := range []struct {
		name string
		opts []pq.WriterOption
	}{
		{"defaults", nil},
		{"small", []pq.WriterOption{pq.MaxRowsPerRowGroup(777), pq.PageBufferSize(2048), pq.DictionaryMaxBytes(600)}},
		{"v1", []pq.WriterOption{pq.MaxRowsPerRowGroup(1000), pq.PageBufferSize(4096), pq.DataPageVersion(1)}},
	} {
		t.Run(v.name, func(t *testing.T) {
			check := func(name string, col, gen, want any) {
				if !reflect.DeepEqual(col, want) {
					t.Errorf("%s: the column reader read other rows than written", name)
				}
				if !reflect.DeepEqual(gen, want) {
					t.Errorf("%s: the generic reader read other rows than written", name)
				}
			}
			c1, g1 := readBoth(t, candles, 300, v.opts...)
			check("candles", c1, g1, candles)
			c2, g2 := readBoth(t, trades, 1024, v.opts...)
			check("trades", c2, g2, trades)
			c3, g3 := readBoth(t, signals, 4999, v.opts...)
			check("signals", c3, g3, signals)
			c4, g4 := readBoth(t, changes, 1, v.opts...)
			check("signal changes", c4, g4, changes)
		})
	}
}

// legacyTrade is a trade row without the wallet column, as a file of an
// older layout would be.
type legacyTrade struct {
	EventTime int64  `parquet:"event_time,timestamp(nanosecond:local)"`
	TradeID   string `parquet:"trade_id"`
	LogIndex  int64  `parquet:"log_index"`
}

// TestOtherSchemasUseTheGenericReader reads a file whose columns are not
// those of the row type: the generic reader takes it, matching by name.
func TestOtherSchemasUseTheGenericReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.parquet")
	if err := WriteRows(path, []legacyTrade{{EventTime: 5, TradeID: "a", LogIndex: -1}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, columnar, err := openRowsAs[TradeRow](f, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if columnar {
		t.Fatal("column reader used for a file missing columns")
	}
	got, err := ReadRows[TradeRow](path)
	if err != nil || len(got) != 1 || got[0] != (TradeRow{EventTime: 5, TradeID: "a", LogIndex: -1}) {
		t.Fatalf("read %+v, %v", got, err)
	}
}
