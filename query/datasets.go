package query

import (
	"bytes"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
)

const priceDataset = 20_000

// datasetVenueKinds are the venue kinds the datasets route sells (spec
// §4.4): the on-chain venues.
var datasetVenueKinds = []string{"onchain_dex", "solana_dex"}

// datasetFormats are the values of the format parameter.
var datasetFormats = []string{"json", "csv", "parquet"}

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{
			{
				Method:  fiber.MethodGet,
				Path:    "/api/v1/datasets",
				Summary: "Catalog of purchasable datasets: symbols, venues, dates, resolutions.",
				Handler: s.handleDatasetCatalog,
			},
			{
				Method:        fiber.MethodGet,
				Path:          "/api/v1/datasets/:symbol",
				PriceMicroUSD: priceDataset,
				Summary:       "One UTC day of a symbol's candles separately per on-chain venue, as JSON, CSV or Parquet.",
				Handler:       s.handleDataset,
			},
		}
	})
	apiOperations["GET /api/v1/datasets"] = apiOperation{
		id: "getDatasetCatalog",
		responses: obj{
			{"200", jsonResponse("What the data directory holds.", ref("DatasetCatalog"))},
			{"500", refResponse("Internal")},
		},
	}
	apiOperations["GET /api/v1/datasets/:symbol"] = apiOperation{
		id: "getDataset",
		params: []obj{symbolParam(), {
			{"name", "date"}, {"in", "query"}, {"required", false},
			{"description", "UTC day YYYY-MM-DD; yesterday (UTC) when omitted."},
			{"schema", obj{{"type", "string"}, {"format", "date"}}},
		}, intervalParam(), {
			{"name", "format"}, {"in", "query"}, {"required", false},
			{"description", "json, csv (text/csv with a Content-Disposition file name) or parquet."},
			{"schema", obj{{"type", "string"}, {"enum", datasetFormats}, {"default", "json"}}},
		}, acceptParam()},
		responses: obj{
			{"200", obj{
				{"description", "The day per venue. A finer interval than stored answers the stored resolution and says so (interval, requestedInterval, note)."},
				{"content", obj{
					{"application/json", obj{{"schema", ref("Dataset")}}},
					{"text/csv", obj{{"schema", tString}}},
					{"application/vnd.apache.parquet", obj{{"schema", obj{{"type", "string"}, {"contentMediaType", "application/vnd.apache.parquet"}}}}},
					{history.ArrowMIME, obj{{"schema", obj{{"type", "string"}, {"contentMediaType", history.ArrowMIME}}}}},
				}},
			}},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No on-chain candles of the symbol on that day; not charged.", ref("HistoryNoDataError"))},
			{"500", refResponse("Internal")},
		},
	}
	registerSchema("DatasetCatalog", object("Body of GET /api/v1/datasets.", obj{
		{"symbols", described(tArray(tString), "Symbols with stored candles, sorted.")},
		{"venues", described(tArray(tString), "Venue partitions with stored candles, sorted.")},
		{"venueKinds", described(tArray(tString), "Venue kinds the datasets route answers.")},
		{"dates", described(tArray(obj{{"type", "string"}, {"format", "date"}}), "UTC days with candles at any resolution, oldest first.")},
		{"resolutions", described(tArray(object("A stored candle interval.", obj{
			{"interval", tEnum(datasets.Intervals...)},
			{"firstDate", obj{{"type", "string"}, {"format", "date"}}},
			{"lastDate", obj{{"type", "string"}, {"format", "date"}}},
			{"days", tCount},
		})), "Stored candle intervals, finest first.")},
		{"retention", described(tString, "How long each resolution is kept.")},
		{"formats", described(tArray(tEnum(datasetFormats...)), "Formats of the dataset route.")},
		{"route", described(tString, "The paid route that answers one day.")},
		{"priceUsd", described(tString, "Price of one day, USD.")},
		{"generatedAt", tDateTime},
	}))
	registerSchema("Dataset", object("Body of GET /api/v1/datasets/{symbol} as JSON.", obj{
		{"symbol", tString},
		{"date", obj{{"type", "string"}, {"format", "date"}}},
		{"interval", described(tEnum(datasets.Intervals...), "Resolution of the candles answered.")},
		{"requestedInterval", described(tEnum(datasets.Intervals...), "Interval asked for.")},
		{"note", obj{{"description", "Why interval differs from requestedInterval; null when equal."}, {"type", []string{"string", "null"}}}},
		{"venues", tArray(object("One venue's candles of the day, oldest first.", obj{
			{"venue", tString},
			{"venueKind", tEnum(datasetVenueKinds...)},
			{"chain", tString},
			{"candles", tArray(ref("Candle"))},
		}))},
		{"source", tString},
	}))
}

// handleDatasetCatalog serves GET /api/v1/datasets.
func (s *Server) handleDatasetCatalog(c fiber.Ctx) error {
	var cat datasets.Catalog
	symbols := []string{}
	if s.d.History != nil {
		cat = datasets.ScanCatalog(s.d.History.Root())
		var err error
		if symbols, err = s.d.History.CachedSymbols(c.Context()); err != nil {
			return err
		}
	}
	now := s.d.Now()
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, `{"symbols":`...)
		b = appendStrings(b, symbols)
		b = append(b, `,"venues":`...)
		b = appendStrings(b, cat.Venues)
		b = append(b, `,"venueKinds":`...)
		b = appendStrings(b, datasetVenueKinds)
		b = append(b, `,"dates":`...)
		b = appendStrings(b, cat.Dates)
		b = append(b, `,"resolutions":[`...)
		for i, r := range cat.Resolutions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"interval":`...)
			b = appendString(b, r.Interval)
			b = append(b, `,"firstDate":`...)
			b = appendString(b, r.FirstDate)
			b = append(b, `,"lastDate":`...)
			b = appendString(b, r.LastDate)
			b = append(b, `,"days":`...)
			b = strconv.AppendInt(b, int64(r.Days), 10)
			b = append(b, '}')
		}
		b = append(b, `],"retention":"1m kept 7 days, then 5m for 30 days, 15m for 180 days, then 1h"`...)
		b = append(b, `,"formats":`...)
		b = appendStrings(b, datasetFormats)
		b = append(b, `,"route":"/api/v1/datasets/{symbol}?date=YYYY-MM-DD&interval=1m&format=json","priceUsd":`...)
		b = appendString(b, priceUSD(priceDataset))
		b = append(b, `,"generatedAt":"`...)
		b = now.UTC().AppendFormat(b, time.RFC3339)
		return append(b, `"}`...)
	})
}

// handleDataset serves GET /api/v1/datasets/:symbol.
func (s *Server) handleDataset(c fiber.Ctx) error {
	sym, perr := parseSymbol(c.Params("symbol"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	day, perr := parseDay("date", c.Query("date"), s.d.Now())
	if perr != nil {
		return sendParamError(c, perr)
	}
	iv, perr := parseInterval(c.Query("interval"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	format, perr := parseEnum("format", c.Query("format"), "json", datasetFormats)
	if perr != nil {
		return sendParamError(c, perr)
	}
	if s.d.History == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	d, err := s.d.History.ExportDay(c.Context(), sym, day, iv, datasetVenueKinds)
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
		if err := history.WriteCandlesParquet(&b, flatten(d)); err != nil {
			return err
		}
		return sendFile(c, "application/vnd.apache.parquet", datasets.CSVFileName(sym, day, d.Interval, "parquet"), b.Bytes())
	}
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte { return datasets.AppendJSON(b, d) })
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
