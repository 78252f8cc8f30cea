package pages

import (
	"encoding/json"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/web"
)

// coverageAnswer is the part of GET /coverage the page reads (schema
// Coverage in openapi.json).
type coverageAnswer struct {
	Symbols []struct {
		Symbol     string `json:"symbol"`
		AssetClass string `json:"asset_class"`
		Name       string `json:"name"`
		Sources    []struct {
			Kind        string  `json:"kind"`
			Venue       *string `json:"venue"`
			VenueSymbol *string `json:"venue_symbol"`
			MarketKind  *string `json:"market_kind"`
			Chain       *string `json:"chain"`
			Address     *string `json:"address"`
			Ticker      *string `json:"ticker"`
		} `json:"sources"`
	} `json:"symbols"`
	Events []struct {
		Name string `json:"name"`
		Live bool   `json:"live"`
	} `json:"events"`
	Tools []struct {
		Name          string `json:"name"`
		Available     bool   `json:"available"`
		PriceMicroUSD int64  `json:"priceMicroUsd"`
		Route         string `json:"route"`
		Reason        string `json:"reason"`
	} `json:"tools"`
}

// coverageView is the coverage page.
type coverageView struct {
	Symbols  []symbolView
	Classes  []classCount
	Sources  int
	Events   []eventView
	Tools    []toolView
	LiveTool int
}

type symbolView struct {
	Symbol, Class, Name string
	Exchanges           []string
	Tokens              []tokenView
}

// tokenView is a token a DEX connector reads for a symbol.
type tokenView struct{ Ticker, Chain, Address, Short string }

type classCount struct {
	Class string
	Count int
}

type eventView struct {
	Name string
	Live bool
}

type toolView struct {
	Name, Route, Price, Reason string
	Available                  bool
}

// assetClassNames are the asset classes for people.
var assetClassNames = map[string]string{"crypto": "Crypto", "us_equity": "US equity (tokenized)", "perp_only": "Perpetuals only"}

func (p *Pages) renderCoverage(c fiber.Ctx, status int, body []byte) error {
	var a coverageAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return err
	}
	v := coverageView{}
	classes := map[string]int{}
	var order []string
	for _, s := range a.Symbols {
		sv := symbolView{Symbol: s.Symbol, Class: s.AssetClass, Name: s.Name}
		if n, ok := assetClassNames[s.AssetClass]; ok {
			sv.Class = n
		}
		for _, src := range s.Sources {
			if src.Kind == "exchange" {
				sv.Exchanges = append(sv.Exchanges, deref(src.Venue)+" "+deref(src.VenueSymbol)+" ("+deref(src.MarketKind)+")")
			} else {
				sv.Tokens = append(sv.Tokens, tokenView{Ticker: deref(src.Ticker), Chain: deref(src.Chain),
					Address: deref(src.Address), Short: shortAddress(deref(src.Address))})
			}
			v.Sources++
		}
		if classes[sv.Class] == 0 {
			order = append(order, sv.Class)
		}
		classes[sv.Class]++
		v.Symbols = append(v.Symbols, sv)
	}
	for _, cl := range order {
		v.Classes = append(v.Classes, classCount{cl, classes[cl]})
	}
	for _, e := range a.Events {
		v.Events = append(v.Events, eventView{e.Name, e.Live})
	}
	for _, t := range a.Tools {
		price := "free"
		if t.PriceMicroUSD > 0 {
			price = web.USD(t.PriceMicroUSD) + " USD"
		}
		v.Tools = append(v.Tools, toolView{Name: t.Name, Route: t.Route, Price: price, Reason: t.Reason, Available: t.Available})
		if t.Available {
			v.LiveTool++
		}
	}
	return p.render(c, status, "coverage", web.Page{Title: "Coverage", Nav: web.NavCoverage, Data: v,
		Description: "The data sources of every covered symbol, the alert events and the MCP tools, as GET /coverage answers them."})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// shortAddress shows a contract address as its first and last characters.
func shortAddress(a string) string {
	if len(a) <= 14 {
		return a
	}
	return a[:8] + "…" + a[len(a)-4:]
}
