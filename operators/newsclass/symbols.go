package newsclass

// MaxSymbols bounds the symbols of one item.
const MaxSymbols = 12

// exchangeWords are the words that, followed by ':', prefix a ticker:
// "(NASDAQ: ADBE)", "NYSE:BLK", "OTCQX: GBTC".
var exchangeWords = map[string]bool{
	"nyse": true, "nasdaq": true, "amex": true, "arca": true, "american": true, "otc": true,
	"otcqx": true, "otcqb": true, "otcmkts": true, "cboe": true, "bats": true, "tsx": true,
}

// symbolWords are words that, right before or after an upper-case word,
// say it is a ticker: "COIN shares", "shares of MSTR".
var symbolWords = map[string]bool{"shares": true, "stock": true, "stocks": true, "token": true, "tokens": true}

// extractSymbols appends to out the symbols the words name, in order of
// first appearance, each once, at most MaxSymbols (rules in docs/news.md):
//
//  1. a cashtag of a covered coin or an SEC ticker ($BTC, $ADBE, $NOW);
//  2. a ticker after an exchange prefix (NASDAQ: ADBE);
//  3. a name: coin names (any case), issuer names (each word with a
//     capital); ambiguous names only in crypto items, with a capital,
//     outside a Title Case headline;
//  4. a bare upper-case word that is a covered coin's ticker, or the
//     ticker of an issuer next to "shares" or "stock", or (outside crypto
//     items) of an issuer ranked below BareTickerRank; never a word of the
//     ambiguous list, of one letter, or of a text in capitals.
func (d *Dictionary) extractSymbols(toks []token, infos []*wordInfo, crypto, shouting bool, out []string) []string {
	add := func(s string) {
		if s == "" || len(out) >= MaxSymbols {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	amb := theLexicon.ambiguous
	for i := 0; i < len(toks); i++ {
		t := &toks[i]
		// 1. Cashtags.
		if t.cashtag {
			add(d.tickerSymbol(t.raw, true))
			continue
		}
		// 2. Exchange prefixes.
		if t.colon && exchangeWords[t.lower] && i+1 < len(toks) {
			if is, ok := d.IssuerByTicker(toks[i+1].raw); ok && isTickerShape(toks[i+1].raw) {
				add(is.Ticker)
				i++
				continue
			}
		}
		// 3. Names.
		if p := matchName(infos[i].names, toks, i, crypto); p != nil {
			add(p.symbol)
			i += len(p.words) - 1
			continue
		}
		// 4. Bare tickers.
		if !t.upper || shouting || len(t.raw) < 2 || len(t.raw) > 6 || amb[t.raw] {
			continue
		}
		if c, ok := d.coinByTicker[t.raw]; ok {
			add(c.Symbol)
			continue
		}
		if is, ok := d.issuerByTicker[t.raw]; ok {
			near := i > 0 && symbolWords[toks[i-1].lower] && !toks[i-1].stop ||
				i+1 < len(toks) && symbolWords[toks[i+1].lower] && !t.stop
			// Crypto news writes the tickers of many tokens the registry
			// does not cover (IP, CC, DASH): there an upper-case word is an
			// issuer only next to "shares" or "stock".
			if near || !crypto && is.Rank < BareTickerRank {
				add(is.Ticker)
			}
		}
	}
	return out
}

// tickerSymbol returns the symbol of a written ticker: a covered coin's
// first, else an SEC issuer's.
func (d *Dictionary) tickerSymbol(raw string, anyRank bool) string {
	if !isTickerShape(raw) {
		return ""
	}
	if c, ok := d.CoinByTicker(raw); ok {
		return c.Symbol
	}
	if is, ok := d.IssuerByTicker(raw); ok && (anyRank || is.Rank < BareTickerRank) {
		return is.Ticker
	}
	return ""
}

// isTickerShape reports whether s looks like a ticker: 1 to 6 ASCII
// letters or digits, starting with a letter.
func isTickerShape(s string) bool {
	if len(s) == 0 || len(s) > 6 || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isASCIILetter(c) || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// matchName returns the longest of names (the names starting with the
// word toks[i]) that counts there, or nil.
func matchName(names []*namePattern, toks []token, i int, crypto bool) *namePattern {
	for _, p := range names {
		if i+len(p.words) > len(toks) {
			continue
		}
		ok := true
		for k, w := range p.words {
			t := &toks[i+k]
			if t.lower != w || t.cashtag || k < len(p.words)-1 && t.stop {
				ok = false
				break
			}
			if (p.capitals || p.ambiguous) && !t.capital && !isSmallWord(w) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if p.ambiguous && (!crypto || toks[i].titleCase) {
			continue
		}
		return p
	}
	return nil
}

// isSmallWord: words of a name that may be written in lower case ("Bank of
// America").
func isSmallWord(w string) bool {
	switch w {
	case "of", "and", "the", "de", "du", "la", "y", "&":
		return true
	}
	return false
}
