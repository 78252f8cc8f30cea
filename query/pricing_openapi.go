package query

import (
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/schema"
)

// The bodies of the pricing routes.
var (
	priceEntrySchema = schema.Named{Name: "PriceEntry", Schema: schema.ObjectRequiring("A route and its price.", schema.Obj{
		{"method", schema.String}, {"path", schema.String}, {"priceUsd", schema.String}, {"priceMicroUsd", schema.Count},
		{"assets", schema.Array(schema.Enum("USDC", "EURC"))}, {"x402Only", schema.Bool}, {"summary", schema.String},
		{"freeCalls", schema.Described(schema.Array(schema.String),
			"Only on a route billed per call inside (POST /mcp): the methods and tools it serves free; every other call costs its tool's price.")},
	}, "method", "path", "priceUsd", "priceMicroUsd", "assets", "x402Only", "summary")}
	paymentNetworkSchema = schema.Named{Name: "PaymentNetwork", Schema: schema.Object("A configured payment network and asset.", schema.Obj{
		{"network", schema.String}, {"asset", schema.String}, {"symbol", schema.String}, {"payTo", schema.String},
	})}
	pricingSchema = schema.Named{Name: "Pricing", Schema: schema.Object("Body of GET /pricing.", schema.Obj{
		{"currency", schema.Const("USD")},
		{"unit", schema.String},
		{"routes", schema.Array(priceEntrySchema)},
		{"networks", schema.Array(paymentNetworkSchema)},
		{"paymentMethods", schema.Array(schema.Enum(api.MethodX402, api.MethodCredits, api.MethodWallet))},
	})}
	transparencySchema = schema.Named{Name: "Transparency", Schema: schema.Object("Body of GET /transparency.", schema.Obj{
		{"operator", schema.Object("Who runs the service.", schema.Obj{{"name", schema.String}, {"url", schema.String}, {"securityContact", schema.String}})},
		{"dataSources", schema.Array(schema.String)},
		{"prices", schema.Array(priceEntrySchema)},
		{"networks", schema.Array(paymentNetworkSchema)},
		{"billingPolicy", schema.Obj{{"type", "object"}, {"additionalProperties", schema.String}}},
		{"notices", schema.Described(schema.Array(schema.String), "What the answers are and are not: news sentiment is a lightweight keyword measure, not investment advice; SEC figures are as filed and their signals are rules, not advice.")},
		{"version", schema.String},
	})}
	x402ResourcesSchema = schema.Named{Name: "X402Resources", Schema: schema.Object("Body of GET /.well-known/x402-resources.", schema.Obj{
		{"x402Version", schema.Const(2)},
		{"resources", schema.Array(schema.Object("A paid resource.", schema.Obj{
			{"resource", schema.String}, {"type", schema.Const("http")}, {"method", schema.String}, {"path", schema.String},
			{"description", schema.String}, {"mimeType", schema.String}, {"priceUsd", schema.String}, {"x402Version", schema.Const(2)},
			{"accepts", schema.Array(paywall.RequirementsSchema)},
		}))},
	})}
)
