package pages

import (
	"encoding/json"
	"slices"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/web"
)

// catalogAnswer is GET /api/v1/datasets (schema DatasetCatalog).
type catalogAnswer struct {
	Symbols     []string `json:"symbols"`
	Venues      []string `json:"venues"`
	VenueKinds  []string `json:"venueKinds"`
	Dates       []string `json:"dates"`
	Resolutions []struct {
		Interval  string `json:"interval"`
		FirstDate string `json:"firstDate"`
		LastDate  string `json:"lastDate"`
		Days      int    `json:"days"`
	} `json:"resolutions"`
	Retention   string   `json:"retention"`
	Formats     []string `json:"formats"`
	Route       string   `json:"route"`
	PriceUSD    string   `json:"priceUsd"`
	GeneratedAt string   `json:"generatedAt"`
}

// datasetsView is the datasets page.
type datasetsView struct {
	A         catalogAnswer
	Intervals []string
	Days      []dayRow
	MoreDays  int
	Symbols   []datasetSymbol
	Finest    string
	LastDate  string
}

type dayRow struct {
	Date   string
	Stored []bool
}

type datasetSymbol struct {
	Symbol string
	Chains []string
}

// maxDayRows bounds the days table (1h candles are kept for ever).
const maxDayRows = 45

func (p *Pages) renderDatasets(c fiber.Ctx, status int, body []byte) error {
	var a catalogAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return err
	}
	v := datasetsView{A: a}
	for _, r := range a.Resolutions {
		v.Intervals = append(v.Intervals, r.Interval)
	}
	if len(a.Resolutions) > 0 {
		v.Finest = a.Resolutions[0].Interval
	}
	if n := len(a.Dates); n > 0 {
		v.LastDate = a.Dates[n-1]
	}
	// A day is stored at a resolution when it lies in that resolution's
	// range (the catalog gives the first and last day and the count; the
	// retention keeps each range whole).
	for i := len(a.Dates) - 1; i >= 0 && len(v.Days) < maxDayRows; i-- {
		d := a.Dates[i]
		row := dayRow{Date: d}
		for _, r := range a.Resolutions {
			row.Stored = append(row.Stored, d >= r.FirstDate && d <= r.LastDate)
		}
		v.Days = append(v.Days, row)
	}
	v.MoreDays = len(a.Dates) - len(v.Days)
	// The on-chain sources of each symbol, from /coverage: the datasets
	// route sells one day per on-chain venue.
	chains := map[string][]string{}
	if st, b := p.fetch(c.Context(), "/coverage"); st == fiber.StatusOK {
		var cov coverageAnswer
		if json.Unmarshal(b, &cov) == nil {
			for _, s := range cov.Symbols {
				for _, src := range s.Sources {
					if src.Kind != "exchange" {
						if ch := deref(src.Chain); !slices.Contains(chains[s.Symbol], ch) {
							chains[s.Symbol] = append(chains[s.Symbol], ch)
						}
					}
				}
			}
		}
	}
	for _, s := range a.Symbols {
		v.Symbols = append(v.Symbols, datasetSymbol{Symbol: s, Chains: chains[s]})
	}
	return p.render(c, status, "datasets", web.Page{Title: "Datasets", Nav: web.NavDatasets, Data: v,
		Description: "The history on sale: one UTC day of a symbol's candles per on-chain venue, as JSON, CSV or Parquet, from the catalog GET /api/v1/datasets answers."})
}
