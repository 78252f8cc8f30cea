// Package news serves the news routes (spec §4.3: GET /api/v1/news and
// GET /api/v1/news/symbol, 0.003 USD each) from the news view
// (sinks/newsview, docs/news.md). Sentiment is a lightweight keyword
// measure, not investment advice; every answer says so in the header
// X-MI-Notice.
package news

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/sinks/newsview"
)

// Routes serve the news routes over one view.
type Routes struct{ view *newsview.View }

// New returns the routes over v (nil: every route answers 404 no_data).
func New(v *newsview.View) *Routes { return &Routes{view: v} }

// Operations are the news routes.
func (rt *Routes) Operations() []api.Operation {
	return []api.Operation{rt.listOperation(), rt.symbolOperation()}
}

const priceNews = 3_000 // 0.003 USD, spec §8

// NoticeHeader carries newsview.Disclaimer on every news answer.
const NoticeHeader = "X-MI-Notice"

var (
	categoryParam = api.Enum{Name: "category", Values: newsview.Categories,
		Desc: "crypto or stocks (spec), or filings (SEC filings); absent: every category."}
	queryParam = api.Text{Name: "query", Desc: "A keyword, company name or ticker (at most 200 characters): a ticker or pair selects the items tagged with the symbol; otherwise every word must appear in the item.",
		Schema: schema.Obj{{"type", "string"}, {"maxLength", newsview.MaxQueryLen}},
		Check: func(raw string) *api.ParamError {
			if utf8.RuneCountInString(raw) > newsview.MaxQueryLen {
				return &api.ParamError{Param: "query", Message: "query must be at most 200 characters", Range: "1 to 200 characters"}
			}
			return nil
		}}
	limitParam  = api.Int{Name: "limit", Desc: "Items to return, newest first.", Min: 1, Max: newsview.MaxLimit, Default: newsview.DefaultLimit}
	symbolParam = api.Symbol{Required: true, Desc: "A coin (BTC, BTCUSD) or a US ticker (ADBE, BRK.B); tokenized equities by their pipeline symbol (TSLAUSD)."}

	itemSchema = schema.Object("One reported 8-K item.", schema.Obj{
		{"item", schema.String}, {"description", schema.String}, {"earnings", schema.Bool},
	})
	filingSchema = schema.Object("The filing of a filings item.", schema.Obj{
		{"form", schema.String}, {"formFamily", schema.String}, {"amendment", schema.Bool},
		{"accessionNumber", schema.String}, {"cik", schema.String}, {"company", schema.String},
		{"items", schema.Array(itemSchema)}, {"earnings", schema.Bool},
		{"filingDate", schema.Date}, {"filingUrl", schema.String}, {"indexUrl", schema.String},
	})
	docSchema = schema.Named{Name: "MarketNewsDocument", Schema: schema.ObjectRequiring(
		"A publisher headline or SEC filing with keyword sentiment (spec §2.8). Sentiment is a lightweight keyword measure, not investment advice.",
		schema.Obj{
			{"id", schema.Described(schema.String, "Stable deduplication id: url:<hex> of the canonical URL, or sec:<accession>.")},
			{"source", schema.Described(schema.String, "Publisher hostname from the article URL.")},
			{"category", schema.Enum(newsview.Categories...)},
			{"title", schema.String},
			{"summary", schema.Described(schema.String, "Publisher teaser (at most 280 characters) or the reported items of a filing.")},
			{"provider", schema.Described(schema.String, "Collection channel, e.g. rss:coindesk, edgar:getcurrent.")},
			{"attribution", schema.Described(schema.String, "Citation to show when redistributing, where the provider requires one.")},
			{"url", schema.Obj{{"type", "string"}, {"format", "uri"}}},
			{"publishedAt", schema.DateTime},
			{"fetchedAt", schema.DateTime},
			{"symbols", schema.Array(schema.String)},
			{"keywords", schema.Array(schema.String)},
			{"sentiment", schema.Enum("positive", "negative", "neutral")},
			{"sentimentScore", schema.Integer},
			{"materiality", schema.Described(schema.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}, "1 routine to 5 market-moving (docs/news.md).")},
			{"alertCategory", schema.Enum("crypto", "stocks", "filings", "policy", "europe")},
			{"filing", filingSchema},
		}, "source", "category", "title", "url", "publishedAt", "sentiment", "sentimentScore")}
	listSchema   = schema.Array(schema.Ref(docSchema.Name))
	noDataSchema = schema.Named{Name: "NewsNoDataError", Schema: schema.Object("404 of the news routes; not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
	notice = schema.Obj{{NoticeHeader, schema.Obj{{"description", newsview.Disclaimer}, {"schema", schema.String}}}}
)

func (rt *Routes) listOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/news", ID: "getMarketNews",
		Summary: "Publisher headlines for crypto and US stocks and SEC filings, newest first, with keyword sentiment, symbols and materiality.",
		Price:   priceNews,
		Params:  []api.Param{categoryParam, queryParam, limitParam},
		Responses: []api.Response{
			{Status: fiber.StatusOK, Desc: "Matching items, newest first.", Schema: listSchema, Headers: notice},
			api.JSON(fiber.StatusNotFound, "Nothing matches; not charged.", noDataSchema),
		},
		Related: []schema.Named{docSchema},
		Tool: &api.Tool{Name: "get_market_news",
			Description: "Latest publisher headlines (crypto, US stocks) and SEC filings, with a keyword sentiment (not investment advice), the symbols named and a materiality from 1 to 5. Filter by category and by a keyword, company name or ticker."},
		Handler: rt.handleList,
	}
}

func (rt *Routes) symbolOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/news/symbol", ID: "getMarketNewsForSymbol",
		Summary: "Headlines and filings that name one symbol, newest first.",
		Price:   priceNews,
		Params:  []api.Param{symbolParam, limitParam},
		Responses: []api.Response{
			{Status: fiber.StatusOK, Desc: "The symbol's items, newest first.", Schema: listSchema, Headers: notice},
			api.JSON(fiber.StatusNotFound, "No news for the symbol, or an unknown symbol; not charged.", noDataSchema),
		},
		Related: []schema.Named{docSchema},
		NoTool:  "get_market_news takes a ticker as its query",
		Handler: rt.handleSymbol,
	}
}

func (rt *Routes) handleList(c fiber.Ctx) error {
	if rt.view == nil {
		return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, "no news on this server")
	}
	docs, err := rt.view.List(categoryParam.Get(c), strings.Clone(queryParam.Get(c)), int(limitParam.Get(c)))
	return rt.send(c, docs, err)
}

func (rt *Routes) handleSymbol(c fiber.Ctx) error {
	if rt.view == nil {
		return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, "no news on this server")
	}
	docs, err := rt.view.ForSymbol(symbolParam.Get(c), int(limitParam.Get(c)))
	return rt.send(c, docs, err)
}

func (rt *Routes) send(c fiber.Ctx, docs []newsview.Document, err error) error {
	switch {
	case errors.Is(err, newsview.ErrNoNews), errors.Is(err, newsview.ErrUnknownSymbol):
		return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, err.Error())
	case err != nil:
		return err
	}
	c.Set(NoticeHeader, newsview.Disclaimer)
	return api.SendValue(c, fiber.StatusOK, docs)
}
