package history

import (
	"bytes"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

const priceDataset = 20_000

// datasetVenueKinds are the venue kinds the datasets route sells (spec
// §4.4): the on-chain venues.
var datasetVenueKinds = []string{"onchain_dex", "solana_dex"}

// datasetFormats are the values of the format parameter.
var datasetFormats = []string{"json", "csv", "parquet"}

var (
	datasetDateParam   = api.Day{Name: "date", Desc: "UTC day YYYY-MM-DD; yesterday (UTC) when omitted."}
	datasetFormatParam = api.Enum{Name: "format", Values: datasetFormats, Default: "json",
		Desc: "json, csv (text/csv with a Content-Disposition file name) or parquet."}
	datasetCatalogSchema = schema.Named{Name: "DatasetCatalog", Schema: schema.Object("Body of GET /api/v1/datasets.", schema.Obj{
		{"symbols", schema.Described(schema.Array(schema.String), "Symbols with stored candles of an on-chain venue (what GET /api/v1/datasets/{symbol} sells), sorted.")},
		{"venues", schema.Described(schema.Array(schema.String), "On-chain venues (kinds onchain_dex, solana_dex) with stored candles, sorted; never an exchange.")},
		{"venueKinds", schema.Described(schema.Array(schema.Enum(datasetVenueKinds...)), "Venue kinds the datasets route answers.")},
		{"dates", schema.Described(schema.Array(schema.Obj{{"type", "string"}, {"format", "date"}}), "UTC days with on-chain candles at any resolution, oldest first.")},
		{"resolutions", schema.Described(schema.Array(schema.Object("A stored candle interval.", schema.Obj{
			{"interval", schema.Enum(datasets.Intervals...)},
			{"firstDate", schema.Obj{{"type", "string"}, {"format", "date"}}},
			{"lastDate", schema.Obj{{"type", "string"}, {"format", "date"}}},
			{"days", schema.Count},
		})), "Stored candle intervals, finest first.")},
		{"retention", schema.Described(schema.String, "How long each resolution is kept.")},
		{"formats", schema.Described(schema.Array(schema.Enum(datasetFormats...)), "Formats of the dataset route.")},
		{"route", schema.Described(schema.String, "The paid route that answers one day.")},
		{"priceUsd", schema.Described(schema.String, "Price of one day, USD.")},
		{"generatedAt", schema.DateTime},
	})}
	datasetSchema = schema.Named{Name: "Dataset", Schema: schema.Object("Body of GET /api/v1/datasets/{symbol} as JSON.", schema.Obj{
		{"symbol", schema.String},
		{"date", schema.Obj{{"type", "string"}, {"format", "date"}}},
		{"interval", schema.Described(schema.Enum(datasets.Intervals...), "Resolution of the candles answered.")},
		{"requestedInterval", schema.Described(schema.Enum(datasets.Intervals...), "Interval asked for.")},
		{"note", schema.Obj{{"description", "Why interval differs from requestedInterval; null when equal."}, {"type", []string{"string", "null"}}}},
		{"venues", schema.Array(schema.Object("One venue's candles of the day, oldest first.", schema.Obj{
			{"venue", schema.String},
			{"venueKind", schema.Enum(datasetVenueKinds...)},
			{"chain", schema.String},
			{"candles", schema.Array(candleSchema)},
		}))},
		{"source", schema.String},
	})}
)

// datasetOperations declares the catalog and the dataset routes.
func (rt *Routes) datasetOperations() []api.Operation {
	return []api.Operation{
		{
			Method: fiber.MethodGet, Path: "/api/v1/datasets", ID: "getDatasetCatalog", Free: true,
			Summary:   "Catalog of purchasable datasets: symbols, venues, dates, resolutions.",
			Responses: []api.Response{api.JSON(fiber.StatusOK, "What the data directory holds.", datasetCatalogSchema)},
			NoTool:    "a free utility route for data buyers; get_data_coverage tells a model what is covered",
			Handler:   rt.handleDatasetCatalog,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/datasets/:symbol", ID: "getDataset", Price: priceDataset,
			Summary: "One UTC day of a symbol's candles separately per on-chain venue, as JSON, CSV or Parquet.",
			Params:  []api.Param{api.SymbolPath, datasetDateParam, intervalParam, datasetFormatParam, acceptParam},
			Responses: []api.Response{
				{Status: fiber.StatusOK, Desc: "The day per venue. A finer interval than stored answers the stored resolution and says so (interval, requestedInterval, note).",
					Schema: datasetSchema, Content: []api.Content{
						{Type: "text/csv", Schema: schema.String},
						{Type: "application/vnd.apache.parquet", Schema: schema.Obj{{"type", "string"}, {"contentMediaType", "application/vnd.apache.parquet"}}},
						{Type: ArrowMIME, Schema: schema.Obj{{"type", "string"}, {"contentMediaType", ArrowMIME}}},
					}},
				historyNoData("No on-chain candles of the symbol on that day; not charged."),
			},
			NoTool:  "a file download (one day per venue as JSON, CSV or Parquet) for data buyers, too large for a model's context",
			Handler: rt.handleDataset,
		},
	}
}

// handleDatasetCatalog serves GET /api/v1/datasets.
func (rt *Routes) handleDatasetCatalog(c fiber.Ctx) error {
	// The catalog offers what the dataset route sells: the symbols, venues,
	// days and resolutions of on-chain venues (datasetVenueKinds), never
	// an exchange's.
	var cat datasets.Catalog
	symbols := []string{}
	if rt.store != nil {
		syms, venues, err := rt.store.CachedOffered(c.Context(), datasetVenueKinds)
		if err != nil {
			return err
		}
		symbols = syms
		cat = datasets.ScanCatalogOf(rt.store.Root(), func(v string) bool { return slices.Contains(venues, v) })
	}
	now := rt.now()
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbols":`...)
		b = jsonw.AppendStrings(b, symbols)
		b = append(b, `,"venues":`...)
		b = jsonw.AppendStrings(b, cat.Venues)
		b = append(b, `,"venueKinds":`...)
		b = jsonw.AppendStrings(b, datasetVenueKinds)
		b = append(b, `,"dates":`...)
		b = jsonw.AppendStrings(b, cat.Dates)
		b = append(b, `,"resolutions":[`...)
		for i, r := range cat.Resolutions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"interval":`...)
			b = jsonw.AppendString(b, r.Interval)
			b = append(b, `,"firstDate":`...)
			b = jsonw.AppendString(b, r.FirstDate)
			b = append(b, `,"lastDate":`...)
			b = jsonw.AppendString(b, r.LastDate)
			b = append(b, `,"days":`...)
			b = strconv.AppendInt(b, int64(r.Days), 10)
			b = append(b, '}')
		}
		b = append(b, `],"retention":"1m kept 7 days, then 5m for 30 days, 15m for 180 days, then 1h"`...)
		b = append(b, `,"formats":`...)
		b = jsonw.AppendStrings(b, datasetFormats)
		b = append(b, `,"route":"/api/v1/datasets/{symbol}?date=YYYY-MM-DD&interval=1m&format=json","priceUsd":`...)
		b = jsonw.AppendString(b, api.PriceUSD(priceDataset))
		b = append(b, `,"generatedAt":"`...)
		b = now.UTC().AppendFormat(b, time.RFC3339)
		return append(b, `"}`...)
	})
}

// handleDataset serves GET /api/v1/datasets/:symbol.
func (rt *Routes) handleDataset(c fiber.Ctx) error {
	sym, day := api.SymbolPath.Get(c), datasetDateParam.Get(c, rt.now())
	iv, format := intervalParam.Get(c), datasetFormatParam.Get(c)
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	d, err := rt.store.ExportDay(c.Context(), sym, day, iv, datasetVenueKinds)
	if err != nil {
		return historyErr(c, err, "no on-chain candles of "+sym+" on "+day+"; GET /api/v1/datasets lists what is stored")
	}
	if wantsArrow(c) {
		return sendCandlesArrow(c, flatten(d))
	}
	switch format {
	case "csv":
		return sendFile(c, "text/csv; charset=utf-8", datasets.CSVFileName(sym, day, d.Interval, "csv"), datasets.AppendCSV(nil, d))
	case "parquet":
		var b bytes.Buffer
		if err := WriteCandlesParquet(&b, flatten(d)); err != nil {
			return err
		}
		return sendFile(c, "application/vnd.apache.parquet", datasets.CSVFileName(sym, day, d.Interval, "parquet"), b.Bytes())
	}
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte { return datasets.AppendJSON(b, d) })
}

// flatten returns the candles of every venue of d, venue by venue.
func flatten(d datasets.ExportDay) []datasets.Candle {
	var out []datasets.Candle
	for _, v := range d.Venues {
		out = append(out, v.Candles...)
	}
	return out
}

// sendFile answers 200 with body as an attachment named name.
func sendFile(c fiber.Ctx, contentType, name string, body []byte) error {
	c.Status(fiber.StatusOK)
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Response().SetBody(body)
	return nil
}
