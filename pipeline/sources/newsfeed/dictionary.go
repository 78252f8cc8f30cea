package newsfeed

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/marketintel/mi/operators/newsclass"
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

// ParseCompanyTickers reads SEC's company_tickers.json
// ({"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},...}) into
// issuers ranked by their key, which is the file's order.
func ParseCompanyTickers(b []byte) ([]newsclass.Issuer, error) {
	var m map[string]struct {
		CIK    json.Number `json:"cik_str"`
		Ticker string      `json:"ticker"`
		Title  string      `json:"title"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("cannot parse company tickers: %w", err)
	}
	out := make([]newsclass.Issuer, 0, len(m))
	for k, v := range m {
		rank, err := strconv.Atoi(k)
		if err != nil || rank < 0 {
			return nil, fmt.Errorf("cannot parse company tickers: key %q is not a rank", k)
		}
		if v.Ticker == "" || v.CIK == "" {
			continue
		}
		out = append(out, newsclass.Issuer{Ticker: strings.ToUpper(v.Ticker), CIK: strings.TrimLeft(v.CIK.String(), "0"), Name: v.Title, Rank: rank})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rank < out[j].Rank })
	return out, nil
}
