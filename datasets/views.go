package datasets

import (
	"path/filepath"
	"strings"
)

// View is a DuckDB view over the day files of one dataset.
type View struct {
	Name string
	// Glob matches the day files; partition columns come from the path.
	Glob string
	// Columns are the file columns, then the partition columns.
	Columns []Column
}

// Views returns the views candles, signals, trades, signal_changes and news
// over the complete day files under root (staging parts are not included),
// and the rates views (RatesViews).
func Views(root string) []View {
	part := func(names ...string) []Column {
		var out []Column
		for _, n := range names {
			typ := "VARCHAR"
			if n == "date" {
				typ = "DATE"
			}
			out = append(out, Column{Name: n, Type: typ, Doc: "partition column (from the path)"})
		}
		return out
	}
	return append([]View{
		{KindCandles, filepath.Join(root, KindCandles, "interval=*", "date=*", "venue=*", DayFileName), append(append([]Column{}, CandleColumns...), part("interval", "date", "venue")...)},
		{KindSignals, filepath.Join(root, KindSignals, "window=*", "date=*", DayFileName), append(append([]Column{}, SignalColumns...), part("window", "date")...)},
		{KindTrades, filepath.Join(root, KindTrades, "date=*", "venue=*", DayFileName), append(append([]Column{}, TradeColumns...), part("date", "venue")...)},
		{KindSignalChanges, filepath.Join(root, KindSignalChanges, "date=*", DayFileName), append(append([]Column{}, SignalChangeColumns...), part("date")...)},
		{KindNews, NewsGlob(root), append(append([]Column{}, NewsColumns...), part("date")...)},
	}, RatesViews(root)...)
}

// CreateSQL is the DuckDB statement that creates the view: over the files
// when any match the glob, otherwise an empty view with the same columns, so
// queries over a fresh data directory return no rows instead of failing.
func (v View) CreateSQL() string {
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE VIEW " + quoteIdent(v.Name) + " AS ")
	if m, _ := filepath.Glob(v.Glob); len(m) > 0 {
		b.WriteString("SELECT * FROM read_parquet(" + quoteString(v.Glob) + ", hive_partitioning = true, hive_types_autocast = false, hive_types = {")
		first := true
		for _, c := range v.Columns {
			if c.Doc != "partition column (from the path)" {
				continue
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(quoteString(c.Name) + ": " + c.Type)
		}
		b.WriteString("})")
		return b.String()
	}
	b.WriteString("SELECT ")
	for i, c := range v.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("CAST(NULL AS " + c.Type + ") AS " + quoteIdent(c.Name))
	}
	b.WriteString(" WHERE false")
	return b.String()
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
