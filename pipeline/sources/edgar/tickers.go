package edgar

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Company is one ticker of an SEC registrant.
type Company struct {
	CIK    CIK    `json:"cik"`
	Ticker string `json:"ticker"`
	// Name is the registrant's conformed name ("Apple Inc.", "MICROSOFT
	// CORP").
	Name string `json:"name"`
	// Exchange is "Nasdaq", "NYSE", "OTC", "Cboe US" or empty; known only
	// from company_tickers_exchange.json.
	Exchange string `json:"exchange,omitempty"`
}

// Tickers maps tickers to registrants. A registrant may have several
// tickers (share classes: GOOGL and GOOG); a ticker has one registrant.
type Tickers struct {
	byTicker map[string]Company
	byCIK    map[CIK][]string
	order    []string // tickers in the order added
}

// NormalizeTicker upper-cases a ticker and writes share-class separators
// as EDGAR does ("BRK.B", "BRK/B" → "BRK-B"). ok is false unless the
// result is 1 to 12 characters of A-Z, 0-9 and '-', starting with a letter
// or digit.
func NormalizeTicker(s string) (string, bool) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.NewReplacer(".", "-", "/", "-").Replace(t)
	if t == "" || len(t) > 12 || t[0] == '-' {
		return "", false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return "", false
		}
	}
	return t, true
}

// Lookup returns the registrant of a ticker (normalized first).
func (t *Tickers) Lookup(ticker string) (Company, bool) {
	if t == nil {
		return Company{}, false
	}
	n, ok := NormalizeTicker(ticker)
	if !ok {
		return Company{}, false
	}
	c, ok := t.byTicker[n]
	return c, ok
}

// TickersOf returns the tickers of a CIK, in the order EDGAR lists them
// (the primary share class first).
func (t *Tickers) TickersOf(cik CIK) []string {
	if t == nil {
		return nil
	}
	return append([]string(nil), t.byCIK[cik]...)
}

// Len is the number of tickers.
func (t *Tickers) Len() int {
	if t == nil {
		return 0
	}
	return len(t.byTicker)
}

func (t *Tickers) add(c Company) {
	n, ok := NormalizeTicker(c.Ticker)
	if !ok || c.CIK == 0 {
		return
	}
	c.Ticker = n
	if old, dup := t.byTicker[n]; dup {
		// The first entry wins (EDGAR lists by market value); a later one
		// only adds what the first lacked.
		if old.Exchange == "" && c.CIK == old.CIK {
			old.Exchange = c.Exchange
			t.byTicker[n] = old
		}
		return
	}
	t.byTicker[n] = c
	t.byCIK[c.CIK] = append(t.byCIK[c.CIK], n)
	t.order = append(t.order, n)
}

// Companies returns the registrant of every ticker in the order of the
// file parsed: company_tickers.json lists the largest companies first, so
// the position ranks issuers by size (the news classifier reads it so).
// After Merge the order is by CIK.
func (t *Tickers) Companies() []Company {
	if t == nil {
		return nil
	}
	out := make([]Company, len(t.order))
	for i, tk := range t.order {
		out[i] = t.byTicker[tk]
	}
	return out
}

func newTickers() *Tickers {
	return &Tickers{byTicker: map[string]Company{}, byCIK: map[CIK][]string{}}
}

// ParseTickers reads company_tickers.json,
// {"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}.
func ParseTickers(b []byte) (*Tickers, error) {
	const format = "company tickers json"
	var raw map[string]struct {
		CIK    json.Number `json:"cik_str"`
		Ticker string      `json:"ticker"`
		Title  string      `json:"title"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, malformed(format, "not an object of {cik_str, ticker, title}", err)
	}
	if len(raw) == 0 {
		return nil, malformed(format, "no entries", nil)
	}
	// Keep EDGAR's order ("0", "1", ...), which ranks share classes.
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	t := newTickers()
	for _, k := range keys {
		e := raw[k]
		cik, err := ParseCIK(e.CIK.String())
		if err != nil {
			return nil, malformed(format, fmt.Sprintf("entry %s", k), err)
		}
		t.add(Company{CIK: cik, Ticker: e.Ticker, Name: e.Title})
	}
	return t, nil
}

// ParseTickersExchange reads company_tickers_exchange.json,
// {"fields":["cik","name","ticker","exchange"],"data":[[320193,"Apple Inc.","AAPL","Nasdaq"],...]}.
// The fields may come in any order.
func ParseTickersExchange(b []byte) (*Tickers, error) {
	const format = "company tickers exchange json"
	var raw struct {
		Fields []string            `json:"fields"`
		Data   [][]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, malformed(format, "not {fields, data}", err)
	}
	col := map[string]int{}
	for i, f := range raw.Fields {
		col[f] = i
	}
	for _, f := range []string{"cik", "name", "ticker"} {
		if _, ok := col[f]; !ok {
			return nil, malformed(format, "no field "+f, nil)
		}
	}
	if len(raw.Data) == 0 {
		return nil, malformed(format, "no entries", nil)
	}
	str := func(row []json.RawMessage, f string) (string, error) {
		i, ok := col[f]
		if !ok || i >= len(row) {
			return "", nil
		}
		if string(row[i]) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(row[i], &s); err != nil {
			var n json.Number
			if err2 := json.Unmarshal(row[i], &n); err2 != nil {
				return "", err
			}
			return n.String(), nil
		}
		return s, nil
	}
	t := newTickers()
	for i, row := range raw.Data {
		if len(row) != len(raw.Fields) {
			return nil, malformed(format, fmt.Sprintf("row %d has %d values for %d fields", i, len(row), len(raw.Fields)), nil)
		}
		var vals [4]string
		for j, f := range []string{"cik", "name", "ticker", "exchange"} {
			v, err := str(row, f)
			if err != nil {
				return nil, malformed(format, fmt.Sprintf("row %d field %s", i, f), err)
			}
			vals[j] = v
		}
		cik, err := ParseCIK(vals[0])
		if err != nil {
			return nil, malformed(format, fmt.Sprintf("row %d", i), err)
		}
		t.add(Company{CIK: cik, Name: vals[1], Ticker: vals[2], Exchange: vals[3]})
	}
	return t, nil
}

// Merge returns the tickers of t with the exchanges (and any extra
// tickers) of x; entries of t win.
func (t *Tickers) Merge(x *Tickers) *Tickers {
	out := newTickers()
	for _, src := range []*Tickers{t, x} {
		if src == nil {
			continue
		}
		// Walk by CIK in ticker order to keep share-class ranking.
		ciks := make([]CIK, 0, len(src.byCIK))
		for c := range src.byCIK {
			ciks = append(ciks, c)
		}
		sort.Slice(ciks, func(i, j int) bool { return ciks[i] < ciks[j] })
		for _, c := range ciks {
			for _, tk := range src.byCIK[c] {
				out.add(src.byTicker[tk])
			}
		}
	}
	if x != nil {
		for tk, c := range out.byTicker {
			if c.Exchange == "" {
				if xc, ok := x.byTicker[tk]; ok && xc.CIK == c.CIK {
					c.Exchange = xc.Exchange
					out.byTicker[tk] = c
				}
			}
		}
	}
	return out
}
