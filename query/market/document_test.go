package market

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/marketintel/mi/schemas"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("cannot write %s: %s", path, err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (run with -update to create it): %s", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (run with -update to accept)\ngot:\n%s", path, got)
	}
}

func TestDocumentGolden(t *testing.T) {
	raw := AppendDocument(nil, fullDoc())
	var indented bytes.Buffer
	if err := json.Indent(&indented, raw, "", "  "); err != nil {
		t.Fatalf("rendered document is not valid JSON: %s\n%s", err, raw)
	}
	indented.WriteByte('\n')
	checkGolden(t, "document.golden.json", indented.Bytes())
}

// keys returns the sorted keys of a JSON object.
func keys(t *testing.T, m map[string]any, path string) []string {
	t.Helper()
	if m == nil {
		t.Fatalf("%s is not an object", path)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sorted(s string) []string {
	ks := strings.Fields(s)
	slices.Sort(ks)
	return ks
}

// TestDocumentFieldNames checks the field names are exactly those of spec
// §2.1 (and the documented observations and interpretation blocks).
func TestDocumentFieldNames(t *testing.T) {
	f := func(d *schemas.IntelligenceDocument) {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(AppendDocument(nil, d), &m); err != nil {
			t.Fatalf("cannot decode rendered document: %s", err)
		}
		check := func(got []string, want, path string) {
			t.Helper()
			if w := sorted(want); !slices.Equal(got, w) {
				t.Fatalf("fields of %s:\ngot:  %v\nwant: %v", path, got, w)
			}
		}
		check(keys(t, m, "document"), `id symbol window price volume buyVolume sellVolume buyPressure
			buySellRatio buySellImbalance priceChangePercent volumeAcceleration tradeAcceleration momentumScore
			activityScore anomalyScore confidenceScore averageTradeSize tradeRatePerMinute volumeRatePerMinute
			priceChangePerMinute tradeCount largeTradeCount largeBuyVolume largeSellVolume maxTradeSize
			maxTradeNotional dominantSide signal signalStrength timestamp previousSignal signalChangedAt
			signalAgeSeconds activityMultiple volumeMultiple activityZScore volumeZScore baselineSamples
			baselineReady marketPercentile relativeMomentumPercentile relativeBuyPressurePercentile eventType
			lifecycleState observations interpretation evidence`, "document")
		obs, _ := m["observations"].(map[string]any)
		check(keys(t, obs, "observations"), `quality windowSeconds previousVolume previousTradeCount firstPrice
			largeTradeThresholdUsd high low vwap baselineVolumeMedian baselineTradeCountMedian`, "observations")
		q, _ := obs["quality"].(map[string]any)
		check(keys(t, q, "quality"), `lateTrades duplicateTrades unknownSideShare venues venueCount gaps`, "quality")
		in, _ := m["interpretation"].(map[string]any)
		check(keys(t, in, "interpretation"), `momentum activity buying relativeStrength`, "interpretation")
		if _, ok := m["evidence"].([]any); !ok {
			t.Fatalf("evidence is %v, want an array", m["evidence"])
		}
		if _, ok := q["venues"].([]any); !ok {
			t.Fatalf("venues is %v, want an array", q["venues"])
		}
		gaps, ok := q["gaps"].([]any)
		if !ok {
			t.Fatalf("gaps is %v, want an array", q["gaps"])
		}
		for _, g := range gaps {
			gm, _ := g.(map[string]any)
			check(keys(t, gm, "gap"), `source from to reason`, "gap")
		}
	}
	f(fullDoc())
	// An empty document has the same shape: arrays stay arrays, blocks stay objects.
	f(&schemas.IntelligenceDocument{})
	f(&schemas.IntelligenceDocument{Observations: &schemas.Observations{}})
}

func TestDocumentEmptyValues(t *testing.T) {
	got := string(AppendDocument(nil, &schemas.IntelligenceDocument{Symbol: "X"}))
	for _, want := range []string{
		`"previousSignal":null`, `"signalChangedAt":null`, `"timestamp":"1970-01-01T00:00:00.000Z"`,
		`"evidence":[]`, `"venues":[]`, `"gaps":[]`, `"baselineReady":false`, `"interpretation":{"momentum":""`,
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("empty document lacks %s:\n%s", want, got)
		}
	}
	if got := string(AppendDocument([]byte("x"), nil)); got != "xnull" {
		t.Fatalf("nil document renders as %q, want null", got)
	}
}

// setDoubles sets every double field of m and of its nested messages to v.
func setDoubles(m protoreflect.Message, v float64) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		switch {
		case fd.Kind() == protoreflect.DoubleKind && !fd.IsList():
			m.Set(fd, protoreflect.ValueOfFloat64(v))
		case fd.Kind() == protoreflect.MessageKind && !fd.IsList():
			setDoubles(m.Mutable(fd).Message(), v)
		}
	}
}

// TestDocumentNonFinite proves NaN and ±Inf never reach the JSON: every
// number field renders as 0.
func TestDocumentNonFinite(t *testing.T) {
	f := func(v float64) {
		t.Helper()
		d := fullDoc()
		setDoubles(d.ProtoReflect(), v)
		b := AppendDocument(nil, d)
		if !json.Valid(b) {
			t.Fatalf("rendering with %v gives invalid JSON:\n%s", v, b)
		}
		for _, bad := range []string{"NaN", "Inf", "-0,"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Fatalf("rendering with %v contains %s:\n%s", v, bad, b)
			}
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("cannot decode: %s", err)
		}
		for _, k := range []string{"price", "volume", "buyPressure", "volumeZScore", "relativeBuyPressurePercentile"} {
			if m[k] != 0.0 {
				t.Fatalf("%s = %v, want 0 for a %v input", k, m[k], v)
			}
		}
		obs := m["observations"].(map[string]any)
		if obs["vwap"] != 0.0 || obs["quality"].(map[string]any)["unknownSideShare"] != 0.0 {
			t.Fatalf("observations not zeroed for a %v input: %v", v, obs)
		}
	}
	f(math.NaN())
	f(math.Inf(1))
	f(math.Inf(-1))
	f(math.Copysign(0, -1))
}

func FuzzAppendDocument(f *testing.F) {
	f.Add("BTCUSD", "ev\"il\x00", 1.5, math.Inf(1), int64(0))
	f.Add("", "\xff", math.NaN(), -0.0, int64(-1))
	f.Add("ETH<USD>", "\u2028", 1e300, 5e-324, int64(1<<62))
	f.Fuzz(func(t *testing.T, symbol, evidence string, x, y float64, ts int64) {
		d := fullDoc()
		d.Symbol, d.Signal = symbol, evidence
		d.Evidence = []string{evidence, symbol}
		d.Observations.Quality.Venues = []string{evidence}
		d.Price, d.Volume, d.Observations.Vwap = x, y, x
		d.TimestampNs, d.SignalChangedAtNs, d.Observations.Quality.Gaps[0].FromNs = ts, ts, ts
		b := AppendDocument(nil, d)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("invalid JSON: %s\n%s", err, b)
		}
		if len(m) != 48 {
			t.Fatalf("document has %d fields, want 48", len(m))
		}
		if got, want := m["symbol"], string([]rune(symbol)); got != want {
			t.Fatalf("symbol reads back as %q, want %q", got, want)
		}
	})
}

func BenchmarkRender(b *testing.B) {
	d := fullDoc()
	buf := AppendDocument(nil, d)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendDocument(buf[:0], d)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
