package newsfeed

import (
	"strings"

	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/symbols"
)

// Coins returns the covered crypto assets of the symbol registry as the
// news classifier names them.
func Coins() []newsclass.Coin {
	var out []newsclass.Coin
	for _, a := range symbols.Assets() {
		if a.Class != symbols.Crypto {
			continue
		}
		t, ok := strings.CutSuffix(a.Symbol, symbols.USD)
		if !ok || t == "" {
			continue
		}
		out = append(out, newsclass.Coin{Symbol: a.Symbol, Ticker: t, Name: a.Name})
	}
	return out
}

// Issuers returns the registrants of SEC's ticker file as the news
// classifier ranks them: by their position in the file.
func Issuers(t *edgar.Tickers) []newsclass.Issuer {
	cs := t.Companies()
	out := make([]newsclass.Issuer, len(cs))
	for i, c := range cs {
		out[i] = newsclass.Issuer{Ticker: c.Ticker, CIK: c.CIK.String(), Name: c.Name, Rank: i}
	}
	return out
}
