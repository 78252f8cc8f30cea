package query

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/x402"
)

// The free routes the route table's prices drive: GET /pricing,
// /transparency, /.well-known/x402-resources (and /x402-resources) and
// /.well-known/security.txt. Every price they show is a route's
// PriceMicroUSD, the same number the 402 quotes and openapi.json carry.

// Operator is who runs the service, shown by /transparency and
// security.txt. It is part of PaywallConfig.
type Operator struct {
	// Name of the operator, e.g. "Example Markets Ltd".
	Name string
	// URL of the operator's site.
	URL string
	// SecurityContact is the RFC 9116 Contact (mailto: or https:).
	SecurityContact string
}

// defaultOperator is shown when the server has no paywall configuration.
var defaultOperator = Operator{Name: "Market Intelligence Service operator", SecurityContact: "mailto:security@localhost"}

func init() {
	registerParameterNames("format")
	registerRoutes(func(s *Server) []Route {
		return []Route{
			{Method: fiber.MethodGet, Path: "/pricing", Summary: "Machine-readable prices of every route (USD per successful call).", Handler: s.handlePricing},
			{Method: fiber.MethodGet, Path: "/transparency", Summary: "Operator, data sources, current prices per route and billing policy.", Handler: s.handleTransparency},
			{Method: fiber.MethodGet, Path: "/.well-known/x402-resources", Summary: "Paid resources with their x402 payment requirements, in manifest form.", Handler: s.handleX402Resources},
			{Method: fiber.MethodGet, Path: "/x402-resources", Summary: "Same as /.well-known/x402-resources.", Handler: s.handleX402Resources},
			{Method: fiber.MethodGet, Path: "/.well-known/security.txt", Summary: "Security contact per RFC 9116.", Handler: s.handleSecurityTxt},
		}
	})
}

// paywallOf returns the server's paywall when it is ours.
func (s *Server) paywallOf() *X402Paywall {
	pw, _ := s.d.Paywall.(*X402Paywall)
	return pw
}

func (s *Server) operator() Operator {
	if pw := s.paywallOf(); pw != nil && pw.c.Operator.Name != "" {
		return pw.c.Operator
	}
	return defaultOperator
}

// publicOrigin is the configured public origin, or the request's own.
func (s *Server) publicOrigin(c fiber.Ctx) string {
	if pw := s.paywallOf(); pw != nil {
		return pw.origin
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
}

// priceList is every route of the table with its price, paid routes first
// in table order, then the free ones.
func (s *Server) priceList() []priceEntry {
	var paid, free []priceEntry
	for _, r := range s.routes {
		e := priceEntry{Method: r.Method, Path: openAPIPathOf(r.Path), PriceUSD: priceUSD(r.PriceMicroUSD),
			PriceMicroUSD: r.PriceMicroUSD, Assets: r.Assets, X402Only: r.X402Only, Summary: r.Summary}
		if e.Assets == nil {
			e.Assets = []string{"USDC"}
		}
		if r.PriceMicroUSD > 0 {
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
		for _, o := range pw.c.Offers {
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

func (s *Server) handlePricing(c fiber.Ctx) error {
	if f := c.Query("format"); f != "" && f != "json" {
		e := &paramError{param: "format", message: "format must be json", acceptedList: []string{"json"}}
		return sendJSON(c, fiber.StatusBadRequest, e.appendBody(nil))
	}
	return s.sendValue(c, map[string]any{
		"currency":       "USD",
		"unit":           "per successful (2xx) call",
		"routes":         s.priceList(),
		"networks":       s.networks(),
		"paymentMethods": []string{MethodX402, MethodCredits, MethodWallet},
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
	return s.sendValue(c, map[string]any{
		"operator":      map[string]string{"name": op.Name, "url": op.URL, "securityContact": op.SecurityContact},
		"dataSources":   sources,
		"prices":        s.priceList(),
		"networks":      s.networks(),
		"billingPolicy": billingPolicy,
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
	for _, r := range s.routes {
		if r.PriceMicroUSD <= 0 {
			continue
		}
		accepts := []x402.PaymentRequirements{}
		if pw != nil {
			accepts = pw.accepts(r)
		}
		out = append(out, x402Resource{Resource: origin + openAPIPathOf(r.Path), Type: "http", Method: r.Method,
			Path: openAPIPathOf(r.Path), Description: r.Summary, MimeType: fiber.MIMEApplicationJSON,
			PriceUSD: priceUSD(r.PriceMicroUSD), X402Version: x402.Version, Accepts: accepts})
	}
	return s.sendValue(c, map[string]any{"x402Version": x402.Version, "resources": out})
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

// sendValue answers 200 with v as JSON.
func (s *Server) sendValue(c fiber.Ctx, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sendJSON(c, fiber.StatusOK, b)
}

// accepts are the requirements the paywall quotes for r.
func (pw *X402Paywall) accepts(r Route) []x402.PaymentRequirements {
	assets := r.Assets
	if len(assets) == 0 {
		assets = []string{"USDC"}
	}
	out := []x402.PaymentRequirements{}
	for _, o := range pw.c.Offers {
		if slices.Contains(assets, o.Asset.Symbol) {
			out = append(out, o.Requirements(r.PriceMicroUSD))
		}
	}
	return out
}
