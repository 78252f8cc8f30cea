// Package token serves the token-analysis routes (spec §4.5):
// GET /api/v1/intelligence/token/{address} (0.01 USD, the last hour's DEX
// flow and verdict) and GET /api/v1/intelligence/token-risk/{address}
// (0.02 USD, the risk report), read on demand from the chain by
// pipeline/sources/token (docs/token.md). Risk answers are automated
// checks, not an audit: every one says so in `disclaimer`.
package token

import (
	"errors"
	"regexp"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// Prices (spec §8), micro-USD.
const (
	priceFlow = 10_000
	priceRisk = 20_000
)

// Chains are the chains the routes accept (spec §4.5).
var Chains = []string{"base", "arbitrum", "optimism"}

// Routes serve the token routes over one reader.
type Routes struct{ r *token.Reader }

// New returns the routes over r (nil: every route answers 503).
func New(r *token.Reader) *Routes { return &Routes{r: r} }

// Operations are the token routes.
func (rt *Routes) Operations() []api.Operation {
	return []api.Operation{rt.flowOperation(), rt.riskOperation()}
}

var addressRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

var (
	addressParam = api.Text{Name: "address", In: api.InPath, Desc: "ERC-20 token contract address: 0x and 40 hex digits.",
		Schema: schema.Obj{{"type", "string"}, {"pattern", "^0x[0-9a-fA-F]{40}$"}},
		Check: func(raw string) *api.ParamError {
			if !addressRE.MatchString(raw) {
				return &api.ParamError{Param: "address", Message: "address must be 0x followed by 40 hex digits", Range: "an EVM address: 0x followed by 40 hex digits"}
			}
			return nil
		}}
	chainParam = api.Enum{Name: "chain", Desc: "Chain of the token.", Values: Chains, Default: "base"}

	errorSchema = schema.Named{Name: "TokenError", Schema: schema.Object("503 of the token routes (the chain could not be read); not charged.", schema.Obj{
		{"error", schema.Const("unavailable")}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
)

func (rt *Routes) flowOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/token/:address", ID: "getTokenFlow",
		Summary: "Last-hour DEX flow of a token and its verdict (ACCUMULATION, DISTRIBUTION, BALANCED, ILLIQUID_OR_INACTIVE, NO_POOL); requests within 45 seconds share one chain read.",
		Price:   priceFlow,
		Params:  []api.Param{addressParam, chainParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The token's last hour on its Uniswap v2 and v3 pools.", FlowSchema),
			api.JSON(fiber.StatusServiceUnavailable, "The chain could not be read; not charged.", errorSchema),
		},
		Tool: &api.Tool{Name: "get_token_flow",
			Description: "Last hour of DEX trading of an ERC-20 token on base, arbitrum or optimism: swaps, buy and sell volume in USD, buy pressure, price change, largest trade, trader concentration, and a verdict."},
		Handler: rt.handleFlow,
	}
}

func (rt *Routes) riskOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/token-risk/:address", ID: "getTokenRisk",
		Summary: "Token due diligence: buy and sell simulated by eth_call as a recent buyer and a fresh address, owner and proxy, bytecode scan, liquidity, LP burned share, observed tax, last-hour flow; verdict and 0-100 safety score; cached 120 seconds. Automated checks, not an audit.",
		Price:   priceRisk,
		Params:  []api.Param{addressParam, chainParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The risk report.", RiskSchema),
			api.JSON(fiber.StatusServiceUnavailable, "The chain could not be read before the token was identified; not charged.", errorSchema),
		},
		Tool: &api.Tool{Name: "get_token_risk",
			Description: "Is an ERC-20 token safe to trade? Simulates a buy and a sell on chain (honeypots, taxes), checks owner, proxy, mint/blacklist/pause/fee/limit/trading-switch functions, liquidity and LP locks. Verdict LOW_RISK, CAUTION or HIGH_RISK with each check. Automated checks, not an audit."},
		Handler: rt.handleRisk,
	}
}

func (rt *Routes) handleFlow(c fiber.Ctx) error {
	addr, ch, ok, err := rt.args(c)
	if !ok {
		return err
	}
	f, err := rt.r.Flow(c.Context(), ch, addr)
	if err != nil {
		return rt.fail(c, err)
	}
	return api.SendValue(c, fiber.StatusOK, f)
}

func (rt *Routes) handleRisk(c fiber.Ctx) error {
	addr, ch, ok, err := rt.args(c)
	if !ok {
		return err
	}
	rep, err := rt.r.Risk(c.Context(), ch, addr)
	if err != nil {
		return rt.fail(c, err)
	}
	return api.SendValue(c, fiber.StatusOK, rep)
}

// args reads the validated parameters; ok false when the answer is sent.
func (rt *Routes) args(c fiber.Ctx) (common.Address, string, bool, error) {
	if rt.r == nil {
		return common.Address{}, "", false, api.SendRendered(c, fiber.StatusServiceUnavailable, func(b []byte) []byte {
			return api.AppendErrorBody(b, "unavailable", "token analysis is not configured on this server (no chains)")
		})
	}
	return common.HexToAddress(addressParam.Get(c)), chainParam.Get(c), true, nil
}

// fail answers a read error: 400 naming the parameter when the address or
// the chain is the problem, 503 when the chain could not be read.
func (rt *Routes) fail(c fiber.Ctx, err error) error {
	if token.IsBadInput(err) {
		param := "address"
		if errors.Is(err, token.ErrNoVenues) {
			param = "chain"
		}
		return api.SendParamError(c, &api.ParamError{Param: param, Message: err.Error(), Range: "an ERC-20 token contract on one of " + joinChains()})
	}
	return api.SendRendered(c, fiber.StatusServiceUnavailable, func(b []byte) []byte {
		return api.AppendErrorBody(b, "unavailable", "cannot read the chain: "+err.Error())
	})
}

func joinChains() string {
	s := ""
	for i, c := range Chains {
		if i > 0 {
			s += ", "
		}
		s += c
	}
	return s
}
