package newsclass

import (
	"sort"
	"strings"
)

// Coin is a covered crypto asset (from the symbol registry,
// pipeline/symbols).
type Coin struct {
	// Symbol is the normalized symbol, e.g. "BTCUSD".
	Symbol string
	// Ticker is the base ticker, e.g. "BTC".
	Ticker string
	// Name is the registry's name, e.g. "Bitcoin".
	Name string
}

// Issuer is a US issuer from SEC's company_tickers.json.
type Issuer struct {
	// Ticker is the trading symbol as SEC spells it ("ADBE", "BRK-B"): the
	// normalized symbol of news about the issuer.
	Ticker string
	// CIK is the Central Index Key, decimal without leading zeros.
	CIK string
	// Name is SEC's company name ("ADOBE INC.").
	Name string
	// Rank is the issuer's position in company_tickers.json, 0 first. SEC
	// lists the largest companies first, so the rank stands for size.
	Rank int
}

// Size thresholds on Issuer.Rank (docs/news.md).
const (
	// LargeIssuerRank: issuers ranked below it are large caps.
	LargeIssuerRank = 100
	// NameIssuerRank: the full SEC names of issuers ranked below it are
	// matched in text; smaller issuers are found by ticker and CIK only.
	NameIssuerRank = 3000
	// BareTickerRank: a bare upper-case ticker (without $ or an exchange
	// prefix) is read as an issuer ranked below it.
	BareTickerRank = 3000
)

// Dictionary says which words of news text name which symbols: tickers,
// cashtags and names of covered coins and of US issuers. It is built once
// from the symbol registry and SEC's ticker file, and is read-only after.
type Dictionary struct {
	coinByTicker   map[string]*Coin
	issuerByTicker map[string]*Issuer
	issuerByCIK    map[string]*Issuer
	// names maps the first lower-case word of a name to its patterns,
	// longest first.
	names map[string][]*namePattern
}

// namePattern is one name of a symbol.
type namePattern struct {
	words  []string // lower-case
	symbol string
	issuer *Issuer // nil for a coin
	// capitals: every word must start with a capital in the text.
	capitals bool
	// ambiguous: an everyday word; counts only in crypto items, with a
	// capital, outside Title Case.
	ambiguous bool
}

// suffixWords are dropped from the end of SEC company names to get the
// name news uses ("Coinbase Global, Inc." → "Coinbase Global").
var suffixWords = map[string]bool{
	"inc": true, "incorporated": true, "corp": true, "corporation": true, "co": true, "company": true,
	"companies": true, "ltd": true, "limited": true, "plc": true, "holdings": true, "holding": true,
	"group": true, "sa": true, "s": true, "a": true, "nv": true, "n": true, "v": true, "ag": true, "se": true,
	"llc": true, "lp": true, "l": true, "p": true, "de": true, "new": true, "the": true, "class": true,
	"ltda": true, "spa": true, "oyj": true, "asa": true, "ab": true, "bv": true, "tbk": true, "adr": true,
}

// genericWords are words that do not make a name on their own: a company
// name made only of them is not matched ("American Financial").
var genericWords = map[string]bool{
	"american": true, "america": true, "national": true, "united": true, "first": true, "global": true,
	"international": true, "general": true, "capital": true, "financial": true, "bank": true, "bancorp": true,
	"energy": true, "digital": true, "technologies": true, "technology": true, "systems": true, "services": true,
	"partners": true, "resources": true, "industries": true, "trust": true, "fund": true, "income": true,
	"investment": true, "investments": true, "realty": true, "properties": true, "health": true, "healthcare": true,
	"pharmaceuticals": true, "therapeutics": true, "bio": true, "medical": true, "solutions": true, "group": true,
	"and": true, "of": true, "us": true, "new": true, "york": true, "data": true, "power": true, "public": true,
	"storage": true, "acquisition": true, "one": true, "two": true, "i": true, "ii": true, "iii": true,
}

// NewDictionary builds a dictionary from the covered coins and the SEC
// issuers. Issuers are ranked by their Rank; a ticker or CIK listed twice
// keeps its best-ranked issuer. Names from the lexicon files whose ticker
// is neither a covered coin nor an SEC issuer are dropped.
func NewDictionary(coins []Coin, issuers []Issuer) *Dictionary {
	d := &Dictionary{
		coinByTicker:   map[string]*Coin{},
		issuerByTicker: map[string]*Issuer{},
		issuerByCIK:    map[string]*Issuer{},
		names:          map[string][]*namePattern{},
	}
	for i := range coins {
		c := &coins[i]
		if c.Ticker == "" || c.Symbol == "" {
			continue
		}
		d.coinByTicker[strings.ToUpper(c.Ticker)] = c
	}
	sorted := make([]*Issuer, 0, len(issuers))
	for i := range issuers {
		if issuers[i].Ticker != "" {
			sorted = append(sorted, &issuers[i])
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Rank < sorted[j].Rank })
	for _, is := range sorted {
		t := strings.ToUpper(is.Ticker)
		if _, dup := d.issuerByTicker[t]; !dup {
			d.issuerByTicker[t] = is
		}
		if _, dup := d.issuerByCIK[is.CIK]; !dup && is.CIK != "" {
			d.issuerByCIK[is.CIK] = is
		}
	}
	lex := theLexicon
	// Coin names: the lexicon's, then the registry's (the lexicon may drop
	// one with ticker "-").
	dropped := map[string]bool{}
	for _, e := range lex.coinNames {
		if e.ticker == "-" {
			dropped[strings.ToLower(e.name)] = true
		}
	}
	for _, e := range lex.coinNames {
		if c := d.coinByTicker[e.ticker]; c != nil {
			d.addName(e.name, c.Symbol, nil, false, e.ambiguous)
		}
	}
	for i := range coins {
		// The lexicon's entry of a name comes first and wins (it may mark
		// the registry's name ambiguous).
		if c := &coins[i]; c.Name != "" && !dropped[strings.ToLower(c.Name)] {
			d.addName(c.Name, c.Symbol, nil, false, false)
		}
	}
	// Issuer names: the lexicon's short names, then SEC's full names of
	// the larger issuers.
	for _, e := range lex.issuerNames {
		if is := d.issuerByTicker[e.ticker]; is != nil {
			d.addName(e.name, is.Ticker, is, true, e.ambiguous)
		}
	}
	for _, is := range sorted {
		if is.Rank >= NameIssuerRank || d.issuerByTicker[strings.ToUpper(is.Ticker)] != is {
			continue
		}
		words := companyWords(is.Name)
		if len(words) < 2 || allGeneric(words) {
			continue
		}
		d.addName(strings.Join(words, " "), is.Ticker, is, true, false)
	}
	for k, ps := range d.names {
		sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].words) > len(ps[j].words) })
		d.names[k] = ps
	}
	return d
}

// addName indexes one name; the first symbol given a name keeps it.
func (d *Dictionary) addName(name, symbol string, is *Issuer, capitals, ambiguous bool) {
	var z tokenizer
	z.add(name)
	if len(z.toks) == 0 {
		return
	}
	words := make([]string, len(z.toks))
	for i, t := range z.toks {
		words[i] = t.lower
	}
	for _, p := range d.names[words[0]] {
		if equalWords(p.words, words) {
			return
		}
	}
	d.names[words[0]] = append(d.names[words[0]], &namePattern{words: words, symbol: symbol, issuer: is, capitals: capitals, ambiguous: ambiguous})
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// companyWords returns the lower-case words of an SEC company name without
// parenthesized or slashed notes (" (BTC)", " /DE/") and legal suffixes.
func companyWords(name string) []string {
	if i := strings.IndexAny(name, "(/"); i >= 0 {
		name = name[:i]
	}
	var z tokenizer
	z.add(name)
	words := make([]string, 0, len(z.toks))
	for _, t := range z.toks {
		words = append(words, t.lower)
	}
	for len(words) > 0 && suffixWords[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	for len(words) > 0 && words[0] == "the" {
		words = words[1:]
	}
	return words
}

func allGeneric(words []string) bool {
	for _, w := range words {
		if !genericWords[w] {
			return false
		}
	}
	return true
}

// IssuerByCIK returns the issuer with a CIK (decimal, leading zeros
// allowed).
func (d *Dictionary) IssuerByCIK(cik string) (*Issuer, bool) {
	is, ok := d.issuerByCIK[strings.TrimLeft(cik, "0")]
	return is, ok
}

// IssuerByTicker returns the issuer with a ticker (any case).
func (d *Dictionary) IssuerByTicker(ticker string) (*Issuer, bool) {
	is, ok := d.issuerByTicker[strings.ToUpper(ticker)]
	return is, ok
}

// CoinByTicker returns the covered coin with a base ticker (any case).
func (d *Dictionary) CoinByTicker(ticker string) (*Coin, bool) {
	c, ok := d.coinByTicker[strings.ToUpper(ticker)]
	return c, ok
}

// CoinBySymbol returns the covered coin with a normalized symbol.
func (d *Dictionary) CoinBySymbol(symbol string) (*Coin, bool) {
	if t, ok := strings.CutSuffix(strings.ToUpper(symbol), "USD"); ok {
		return d.CoinByTicker(t)
	}
	return nil, false
}

// Resolve maps a symbol as a user writes it to the symbol news items
// carry: a covered coin by ticker or pair ("BTC", "$btc", "BTCUSD",
// "BTC-USDT" → "BTCUSD"), an SEC issuer by ticker ("adbe" → "ADBE", "BRK.B"
// → "BRK-B"), a tokenized equity by its pipeline symbol ("TSLAUSD" →
// "TSLA"). ok is false for anything else.
func (d *Dictionary) Resolve(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimPrefix(strings.TrimSpace(s), "$"))
	if s == "" || len(s) > 20 {
		return "", false
	}
	if c, ok := d.coinByTicker[s]; ok {
		return c.Symbol, true
	}
	if is, ok := d.issuerByTicker[strings.NewReplacer(".", "-", "/", "-").Replace(s)]; ok {
		return is.Ticker, true
	}
	flat := strings.NewReplacer("-", "", "/", "", "_", "").Replace(s)
	for _, q := range []string{"USDT", "USDC", "USD"} {
		base, ok := strings.CutSuffix(flat, q)
		if !ok || base == "" {
			continue
		}
		if c, ok := d.coinByTicker[base]; ok {
			return c.Symbol, true
		}
		if is, ok := d.issuerByTicker[base]; ok {
			return is.Ticker, true
		}
	}
	return "", false
}
