package pages

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/query/web"
)

const homePath = "/"

// indexSchema is the JSON of GET / for clients that do not ask for HTML.
var indexSchema = schema.Named{Name: "Index", Schema: schema.Object("Where to start (GET / without Accept: text/html).", schema.Obj{
	{"service", schema.Const("mi")},
	{"description", schema.String},
	{"links", schema.Described(schema.Obj{{"type", "object"}, {"additionalProperties", schema.String}}, "Free routes to start with, by name.")},
})}

// indexLinks are the links of GET / as JSON.
var indexLinks = [][2]string{
	{"openapi", "/openapi.json"}, {"pricing", "/pricing?format=json"}, {"preview", "/api/v1/preview?symbol=ETHUSD"},
	{"coverage", "/coverage"}, {"status", "/status"}, {"trackRecord", "/track-record"}, {"datasets", "/api/v1/datasets"},
	{"mcp", "/mcp"}, {"x402Resources", "/.well-known/x402-resources"},
}

const serviceDescription = "Trade-flow intelligence for crypto and tokenized US equities: signals from exchange and on-chain trades, " +
	"their track record, and the history as datasets; paid per call with x402 or prepaid credits."

// Operations declares the pages of this room: the home page.
func (p *Pages) Operations() []api.Operation {
	return []api.Operation{{
		Method: fiber.MethodGet, Path: homePath, ID: "getHome", Free: true,
		Summary: "Home: what the service is, its routes and prices, how to pay, the free preview, live coverage and the track record.",
		Responses: []api.Response{{Status: fiber.StatusOK,
			Desc:    "A page for a browser (Accept naming text/html); for everyone else a JSON index of the free routes to start with.",
			Schema:  indexSchema,
			Content: []api.Content{{Type: "text/html", Schema: schema.String}}}},
		NoTool:  "the home page for people; get_data_coverage and get_market_preview answer a model",
		Handler: p.handleHome,
	}}
}

// homeView is the home page.
type homeView struct {
	Description string
	Previews    []previewView
	Status      *table
	Healthy     int
	Symbols     int
	Sources     int
	Classes     []classCount
	Track       *trackAnswer
	TrackChart  *web.Figure
	Paid, Free  []routeView
	Card        bool
	Origin      string
}

type previewView struct {
	Symbol     string
	Figure     *web.Figure
	Close      *float64
	VolumeUSD  float64
	BuyPress   float64
	AsOf       string
	CandleEnds string
}

type routeView struct {
	Method, Path, Price, Summary string
}

// previewAnswer is GET /api/v1/preview (schema Preview).
type previewAnswer struct {
	Symbol  string `json:"symbol"`
	AsOf    string `json:"asOf"`
	Candles []struct {
		End         string   `json:"end"`
		Close       *float64 `json:"close"`
		VolumeUSD   float64  `json:"volumeUsd"`
		BuyPressure float64  `json:"buyPressure"`
	} `json:"candles"`
}

func (p *Pages) handleHome(c fiber.Ctx) error {
	c.Vary(fiber.HeaderAccept)
	if !web.WantsHTML(c.Get(fiber.HeaderAccept)) {
		links := map[string]string{}
		for _, l := range indexLinks {
			links[l[0]] = l[1]
		}
		return api.SendValue(c, fiber.StatusOK, struct {
			Service     string            `json:"service"`
			Description string            `json:"description"`
			Links       map[string]string `json:"links"`
		}{"mi", serviceDescription, links})
	}
	ctx := c.Context()
	v := homeView{Description: serviceDescription, Card: p.c.CardCheckout, Origin: c.BaseURL()}
	ops := p.c.Table()
	for _, sym := range previewSymbols(ops) {
		pv := previewView{Symbol: sym}
		if st, b := p.fetch(ctx, "/api/v1/preview?symbol="+url.QueryEscape(sym)); st == fiber.StatusOK {
			var a previewAnswer
			if json.Unmarshal(b, &a) == nil {
				pv.AsOf = a.AsOf
				pv.Figure = previewFigure(a)
				if n := len(a.Candles); n > 0 {
					last := a.Candles[n-1]
					pv.Close, pv.VolumeUSD, pv.BuyPress, pv.CandleEnds = last.Close, last.VolumeUSD, last.BuyPressure, last.End
				}
			}
		}
		v.Previews = append(v.Previews, pv)
	}
	if st, b := p.fetch(ctx, "/status"); st == fiber.StatusOK {
		if sv, err := decodeOrdered(b); err == nil {
			if src := sv.get("sources"); src != nil && src.Kind == "array" && allObjects(src.Arr) {
				t := tableOf("sources", src.Arr, p.c.Now())
				t = t.only("source", "state", "lastIngestAt", "freshnessMs", "trades")
				v.Status, v.Healthy = &t, t.Healthy
			}
		}
	}
	if st, b := p.fetch(ctx, "/coverage"); st == fiber.StatusOK {
		var cov coverageAnswer
		if json.Unmarshal(b, &cov) == nil {
			v.Symbols = len(cov.Symbols)
			classes := map[string]int{}
			var order []string
			for _, s := range cov.Symbols {
				v.Sources += len(s.Sources)
				cl := assetClassNames[s.AssetClass]
				if cl == "" {
					cl = s.AssetClass
				}
				if classes[cl] == 0 {
					order = append(order, cl)
				}
				classes[cl]++
			}
			for _, cl := range order {
				v.Classes = append(v.Classes, classCount{cl, classes[cl]})
			}
		}
	}
	if st, b := p.fetch(ctx, "/track-record"); st == fiber.StatusOK {
		var a trackAnswer
		if json.Unmarshal(b, &a) == nil {
			v.Track = &a
			f := hitRateFigure("Hit rate by horizon", "Hit rate of the signals of the last "+itoa(a.Days)+" days per horizon.", trackHorizons,
				func(h string) horizonStats { return a.Horizons[h] })
			v.TrackChart = &f
		}
	}
	v.Paid, v.Free = routes(ops)
	return p.render(c, fiber.StatusOK, "home", web.Page{Title: "Market Intelligence Service", Nav: web.NavHome, Data: v,
		Description: serviceDescription})
}

// only keeps the named columns of t, in that order.
func (t table) only(keys ...string) table {
	var idx []int
	var cols []column
	for _, k := range keys {
		for i, c := range t.Columns {
			if c.Key == k {
				idx = append(idx, i)
				cols = append(cols, c)
			}
		}
	}
	out := table{Key: t.Key, Title: t.Title, Columns: cols, Healthy: t.Healthy}
	for _, r := range t.Rows {
		nr := row{ID: r.ID}
		for _, i := range idx {
			nr.Cells = append(nr.Cells, r.Cells[i])
		}
		out.Rows = append(out.Rows, nr)
	}
	return out
}

// previewSymbols are the values of the preview route's symbol parameter.
func previewSymbols(ops []api.Operation) []string {
	for _, op := range ops {
		if op.Method != fiber.MethodGet || op.Path != "/api/v1/preview" {
			continue
		}
		for _, prm := range op.Params {
			if e, ok := prm.(api.Enum); ok && e.Name == "symbol" {
				return e.Values
			}
		}
	}
	return nil
}

// previewFigure is the line of closes of a preview.
func previewFigure(a previewAnswer) *web.Figure {
	if len(a.Candles) == 0 {
		return nil
	}
	ch := web.Chart{Kind: "line", Height: 140, Series: []web.ChartSeries{{Label: a.Symbol + " close"}}}
	for _, cd := range a.Candles {
		t, err := time.Parse(time.RFC3339Nano, cd.End)
		if err != nil {
			return nil
		}
		ch.X = append(ch.X, t.Unix())
		ch.Series[0].Values = append(ch.Series[0].Values, cd.Close)
	}
	return &web.Figure{Label: a.Symbol + ": closes of the last " + itoa(int64(len(a.Candles))) + " five-minute candles, delayed 15 minutes", Spec: ch}
}

// routes lists the table's API routes, paid then free, each sorted by path;
// pages and assets (no JSON answer) are left out.
func routes(ops []api.Operation) (paid, free []routeView) {
	for _, op := range ops {
		if op.Path == homePath || !answersJSON(op) {
			continue
		}
		r := routeView{Method: op.Method, Path: op.OpenAPIPath(), Summary: op.Summary, Price: "free"}
		if op.Paid() {
			r.Price = web.USD(op.Price)
			paid = append(paid, r)
		} else {
			free = append(free, r)
		}
	}
	byPath := func(a, b routeView) int { return strings.Compare(a.Path+" "+a.Method, b.Path+" "+b.Method) }
	slices.SortFunc(paid, byPath)
	slices.SortFunc(free, byPath)
	return paid, free
}

// answersJSON reports whether a successful answer of op is JSON.
func answersJSON(op api.Operation) bool {
	for _, r := range op.Responses {
		if r.Status >= 200 && r.Status < 300 && (r.Schema != nil || r.Ref != "") {
			return true
		}
	}
	return false
}

func itoa(n int64) string { return web.Count(n) }
