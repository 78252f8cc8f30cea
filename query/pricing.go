package query

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/x402"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/query/sec"
	"github.com/marketintel/mi/sinks/newsview"
)

// The free routes the route table's prices drive: GET /pricing,
// /transparency, /.well-known/x402-resources (and /x402-resources) and
// /.well-known/security.txt. Every price they show is a route's
// PriceMicroUSD, the same number the 402 quotes and openapi.json carry.

// defaultOperator is shown when the server has no paywall configuration.
var defaultOperator = paywall.Operator{Name: "Market Intelligence Service operator", SecurityContact: "mailto:security@localhost"}

// formatParam is the format of GET /pricing: json only.
var formatParam = api.Enum{Name: "format", Values: []string{"json"}, Desc: "Response format."}

// pricingOperations declares the free routes the table's prices drive.
func (s *Server) pricingOperations() []api.Operation {
	const why = "a free utility route that lists prices and payment terms for clients; a model gets each tool's price in its description"
	return []api.Operation{
		{Method: fiber.MethodGet, Path: "/pricing", ID: "getPricing", Free: true,
			Summary:   "Machine-readable prices of every route (USD per successful call).",
			Params:    []api.Param{formatParam},
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Every route with its price.", pricingSchema)},
			NoTool:    why, Handler: s.handlePricing},
		{Method: fiber.MethodGet, Path: "/transparency", ID: "getTransparency", Free: true,
			Summary:   "Operator, data sources, current prices per route and billing policy.",
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Operator, data sources, prices and billing policy.", transparencySchema)},
			NoTool:    why, Handler: s.handleTransparency},
		{Method: fiber.MethodGet, Path: "/.well-known/x402-resources", ID: "getX402ResourcesWellKnown", Free: true,
			Summary:   "Paid resources with their x402 payment requirements, in manifest form.",
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Paid resources with their payment requirements.", x402ResourcesSchema)},
			NoTool:    why, Handler: s.handleX402Resources},
		{Method: fiber.MethodGet, Path: "/x402-resources", ID: "getX402Resources", Free: true,
			Summary:   "Same as /.well-known/x402-resources.",
			Responses: []api.Response{api.JSON(fiber.StatusOK, "Same as /.well-known/x402-resources.", x402ResourcesSchema)},
			NoTool:    why, Handler: s.handleX402Resources},
		{Method: fiber.MethodGet, Path: "/.well-known/security.txt", ID: "getSecurityTxt", Free: true,
			Summary: "Security contact per RFC 9116.",
			Responses: []api.Response{{Status: fiber.StatusOK, Desc: "RFC 9116 security.txt.",
				Content: []api.Content{{Type: "text/plain", Schema: schema.String}}}},
			NoTool: "the security contact for people, per RFC 9116", Handler: s.handleSecurityTxt},
	}
}

// paywallOf returns the server's paywall when it is ours.
func (s *Server) paywallOf() *paywall.X402Paywall {
	pw, _ := s.d.Paywall.(*paywall.X402Paywall)
	return pw
}

func (s *Server) operator() paywall.Operator {
	if pw := s.paywallOf(); pw != nil && pw.Operator().Name != "" {
		return pw.Operator()
	}
	return defaultOperator
}

// publicOrigin is the configured public origin, or the request's own.
func (s *Server) publicOrigin(c fiber.Ctx) string {
	if pw := s.paywallOf(); pw != nil {
		return pw.Origin()
	}
	return c.Scheme() + "://" + c.Host()
}

// priceEntry is one route in /pricing and /transparency.
type priceEntry struct {
	Method        string   `json:"method"`
	Path          string   `json:"path"`
	PriceUSD      string   `json:"priceUsd"`
	PriceMicroUSD int64    `json:"priceMicroUsd"`
	Assets        []string `json:"assets"`
	X402Only      bool     `json:"x402Only"`
	Summary       string   `json:"summary"`
	// FreeCalls are what a route priced per call inside (POST /mcp) serves
	// without charge.
	FreeCalls []string `json:"freeCalls,omitempty"`
}

// priceList is every route of the table with its price, paid routes first
// in table order, then the free ones.
func (s *Server) priceList() []priceEntry {
	var paid, free []priceEntry
	for _, r := range s.ops {
		e := priceEntry{Method: r.Method, Path: r.OpenAPIPath(), PriceUSD: api.PriceUSD(r.Price),
			PriceMicroUSD: r.Price, Assets: r.Assets, X402Only: r.X402Only, Summary: r.Summary, FreeCalls: r.FreeCalls}
		if e.Assets == nil {
			e.Assets = []string{"USDC"}
		}
		if r.Paid() {
			paid = append(paid, e)
		} else {
			e.Assets = []string{}
			free = append(free, e)
		}
	}
	return append(paid, free...)
}

// networkEntry is a configured payment network.
type networkEntry struct {
	Network string `json:"network"`
	Asset   string `json:"asset"`
	Symbol  string `json:"symbol"`
	PayTo   string `json:"payTo"`
}

func (s *Server) networks() []networkEntry {
	out := []networkEntry{}
	if pw := s.paywallOf(); pw != nil {
		for _, o := range pw.Offers() {
			out = append(out, networkEntry{Network: o.Network, Asset: o.Asset.Address, Symbol: o.Asset.Symbol, PayTo: o.PayTo})
		}
	}
	return out
}

// billingPolicy is the billing rules of spec §5 and §7.
var billingPolicy = map[string]string{
	"charging":   "Only answers with status 2xx are charged; the price of a route is the price quoted in its 402.",
	"x402":       "x402 version 2, scheme exact (EIP-3009 on EVM networks, via a facilitator on Solana); settlement happens only after a 2xx answer; an authorization is accepted once.",
	"credits":    "X-API-Key: each call costs its x402 price and is debited before the call; answers with status 400 or above are refunded; credits never expire.",
	"wallet":     "SIGN-IN-WITH-X: a proof is valid for 5 minutes and usable once; the call is taken from the wallet's credit.",
	"refunds":    "Errors are never charged: 4xx and 5xx answers are refunded (credits) or never settled (x402).",
	"currency":   "Prices are USD; USDC atomic units (6 decimals) equal micro-USD.",
	"rateLimits": "Unpaid requests that only fetch a 402 quote are rate-limited per client IP.",
}

// notices are what /transparency states about the answers themselves: how
// far their measures go.
var notices = []string{newsview.Disclaimer, sec.Notice}

func (s *Server) handlePricing(c fiber.Ctx) error {
	return api.SendValue(c, fiber.StatusOK, map[string]any{
		"currency":       "USD",
		"unit":           "per successful (2xx) call",
		"routes":         s.priceList(),
		"networks":       s.networks(),
		"paymentMethods": []string{api.MethodX402, api.MethodCredits, api.MethodWallet},
	})
}

func (s *Server) handleTransparency(c fiber.Ctx) error {
	op := s.operator()
	sources := []string{}
	if s.d.Stats != nil {
		st, _ := s.d.Stats.Snapshot()
		for _, x := range st {
			sources = append(sources, x.Name)
		}
	}
	slices.Sort(sources)
	return api.SendValue(c, fiber.StatusOK, map[string]any{
		"operator":      map[string]string{"name": op.Name, "url": op.URL, "securityContact": op.SecurityContact},
		"dataSources":   sources,
		"prices":        s.priceList(),
		"networks":      s.networks(),
		"billingPolicy": billingPolicy,
		"notices":       notices,
		"version":       s.d.Version,
	})
}

// x402Resource is one paid resource of the manifest.
type x402Resource struct {
	Resource    string                     `json:"resource"`
	Type        string                     `json:"type"`
	Method      string                     `json:"method"`
	Path        string                     `json:"path"`
	Description string                     `json:"description"`
	MimeType    string                     `json:"mimeType"`
	PriceUSD    string                     `json:"priceUsd"`
	X402Version int                        `json:"x402Version"`
	Accepts     []x402.PaymentRequirements `json:"accepts"`
}

func (s *Server) handleX402Resources(c fiber.Ctx) error {
	origin := s.publicOrigin(c)
	pw := s.paywallOf()
	out := []x402Resource{}
	for _, r := range s.ops {
		// A route billed per call inside (POST /mcp) has no single price
		// to pay up front: each tools/call quotes its own in a 402.
		if !r.Paid() || r.BilledInside {
			continue
		}
		accepts := []x402.PaymentRequirements{}
		if pw != nil {
			accepts = pw.Accepts(r)
		}
		out = append(out, x402Resource{Resource: origin + api.OpenAPIPath(r.Path), Type: "http", Method: r.Method,
			Path: api.OpenAPIPath(r.Path), Description: r.Summary, MimeType: fiber.MIMEApplicationJSON,
			PriceUSD: api.PriceUSD(r.Price), X402Version: x402.Version, Accepts: accepts})
	}
	return api.SendValue(c, fiber.StatusOK, map[string]any{"x402Version": x402.Version, "resources": out})
}

func (s *Server) handleSecurityTxt(c fiber.Ctx) error {
	op := s.operator()
	var b strings.Builder
	b.WriteString("Contact: " + op.SecurityContact + "\n")
	b.WriteString("Expires: " + s.d.Now().UTC().Add(365*24*time.Hour).Truncate(24*time.Hour).Format(time.RFC3339) + "\n")
	b.WriteString("Preferred-Languages: en\n")
	b.WriteString("Canonical: " + s.publicOrigin(c) + "/.well-known/security.txt\n")
	c.Set(fiber.HeaderContentType, "text/plain; charset=utf-8")
	return c.Status(fiber.StatusOK).SendString(b.String())
}
