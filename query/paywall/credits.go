package paywall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/schema"
)

// Credit packs (spec §4.8): the price paid (with x402, or by card through
// query/paywall/checkout) and the credit granted, in micro-USD.
// docs/credits.md describes how a pack credits a key and the paying wallet.
var creditPacks = []Pack{
	{Name: "5", PriceMicroUSD: 5_000_000, CreditMicroUSD: 5_000_000},
	{Name: "20", PriceMicroUSD: 20_000_000, CreditMicroUSD: 22_000_000},
	{Name: "50", PriceMicroUSD: 50_000_000, CreditMicroUSD: 60_000_000},
}

// Pack is a credit pack: its name (the path segment), its price and the
// credit it grants, in micro-USD.
type Pack struct {
	Name           string
	PriceMicroUSD  int64
	CreditMicroUSD int64
}

// Packs returns the credit packs, cheapest first.
func Packs() []Pack { return slices.Clone(creditPacks) }

// PackNames are the pack names, cheapest first: the accepted values of a
// pack parameter.
func PackNames() []string { return creditPackNames() }

// creditPackNames are the accepted values of the pack path parameter.
func creditPackNames() []string {
	out := make([]string, len(creditPacks))
	for i, p := range creditPacks {
		out[i] = p.Name
	}
	return out
}

// Paths of the credits routes.
const (
	creditsBuyPrefix   = "/api/v1/credits/buy/"
	creditsBuyAnyPath  = creditsBuyPrefix + ":pack"
	creditsBalancePath = "/api/v1/credits/balance"
	creditsBuyRouteKey = "POST " + creditsBuyPrefix
)

// Error codes of the credits routes.
const (
	codeAPIKeyRequired  = "api_key_required"
	codeUnknownAPIKey   = "unknown_api_key"
	codePaymentRequired = "payment_required"
	codeUnavailable     = "unavailable"
)

// The bodies of the credits routes (docs/credits.md).
var (
	creditsPurchaseSchema = schema.Named{Name: "CreditsPurchase", Schema: schema.Object("Answer of a paid credit pack purchase (docs/credits.md).", schema.Obj{
		{"apiKey", schema.Described(schema.Obj{{"type", []string{"string", "null"}}, {"pattern", "^" + ledger.KeyPrefix + "[0-9a-f]{64}$"}},
			"The new API key, shown this once and stored only as a hash; null on a top-up of the key sent in X-API-Key.")},
		{"toppedUp", schema.Described(schema.Bool, "True when the pack was added to the key sent in X-API-Key.")},
		{"pack", schema.Enum(creditPackNames()...)},
		{"priceUsd", schema.Described(schema.String, "Price paid, decimal USD.")},
		{"creditUsd", schema.Described(schema.String, "Credit granted, decimal USD.")},
		{"creditMicroUsd", schema.Described(schema.Count, "Credit granted in micro-USD.")},
		{"balanceUsd", schema.Described(schema.String, "Balance of the key after the purchase, decimal USD.")},
		{"balanceMicroUsd", schema.Described(schema.Count, "Balance of the key after the purchase in micro-USD.")},
		{"wallet", schema.Described(schema.Obj{{"type", []string{"string", "null"}}},
			"The paying wallet's id, CAIP-2 namespace and address (eip155:0x… in lower case, or solana:<base58>); signing in with it (SIGN-IN-WITH-X) spends the same balance as the key. Null when the facilitator named no payer.")},
		{"network", schema.Described(schema.String, "CAIP-2 network of the payment.")},
		{"asset", schema.Described(schema.String, "Asset symbol of the payment: USDC or EURC.")},
	})}
	creditsBalanceSchema = schema.Named{Name: "CreditsBalance", Schema: schema.Object("Balance of an API key (docs/credits.md).", schema.Obj{
		{"balanceUsd", schema.Described(schema.String, "Decimal USD.")},
		{"balanceMicroUsd", schema.Described(schema.Count, "Micro-USD (USDC atomic units).")},
		{"wallets", schema.Described(schema.Array(schema.String), "Ids (eip155:0x… or solana:<base58>) of the wallets whose sign-in spends this balance, sorted; never null.")},
		{"keys", schema.Described(schema.Count, "Number of API keys sharing this balance.")},
	})}
	creditsErrorSchema = schema.Named{Name: "CreditsError", Schema: schema.Object("Error body of the credits routes.", schema.Obj{
		{"error", schema.Enum(codeAPIKeyRequired, codeUnknownAPIKey, codePaymentRequired, codeUnavailable)},
		{"message", schema.String},
		{"charged", schema.Const(false)},
	})}
)

// Parameters of the credits routes.
var (
	topUpKeyParam    = api.Header{Name: "X-API-Key", Desc: "API key to top up; absent buys a new key."}
	balanceKeyParam  = api.Header{Name: "X-API-Key", Required: true, Desc: "API key (" + ledger.KeyPrefix + " and 64 hex digits)."}
	unknownPackParam = api.Text{Name: "pack", In: api.InPath, Desc: "Any pack other than 5, 20 and 50 (those have their own operations)."}
)

// Credits serve the credit packs and the balance over one ledger.
type Credits struct {
	ledger *ledger.SQL
	now    func() time.Time
	logger *slog.Logger
}

// NewCredits returns the credits routes over l; nil answers 503 on them.
// now stamps the purchases; logger receives what cannot be recorded.
func NewCredits(l *ledger.SQL, now func() time.Time, logger *slog.Logger) *Credits {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Credits{ledger: l, now: now, logger: logger}
}

// Operations declares the credits routes: one buy route per pack (spec
// §4.8), the 400 of any other pack, and the balance.
func (cr *Credits) Operations() []api.Operation {
	var ops []api.Operation
	for _, p := range creditPacks {
		ops = append(ops, api.Operation{
			Method: fiber.MethodPost, Path: creditsBuyPrefix + p.Name, ID: "buyCredits" + p.Name,
			Price: p.PriceMicroUSD, X402Only: true, Assets: []string{"USDC", "EURC"},
			Summary: "Buy the " + p.Name + " USD credit pack (credit " + api.PriceUSD(p.CreditMicroUSD) +
				" USD): a new API key, shown once, or with X-API-Key a top-up of that key.",
			Params: []api.Param{topUpKeyParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "Pack bought: a new key (shown once) or the top-up of X-API-Key.", creditsPurchaseSchema),
				api.JSON(fiber.StatusUnauthorized, "X-API-Key names no key of this service (unknown_api_key); not charged.", creditsErrorSchema),
				api.JSON(fiber.StatusServiceUnavailable, "The server has no ledger configured; not charged.", creditsErrorSchema),
			},
			NoTool:  "a purchase paid by x402 only; a model's client buys credits outside the tools (docs/credits.md)",
			Handler: cr.buyHandler(p),
		})
	}
	return append(ops,
		api.Operation{
			Method: fiber.MethodPost, Path: creditsBuyAnyPath, ID: "buyCreditsUnknownPack", Free: true,
			Summary:   "Any other pack: 400 naming the accepted packs (5, 20, 50); never charged.",
			Params:    []api.Param{unknownPackParam},
			Responses: []api.Response{api.BadRequest()},
			NoTool:    "answers only the 400 of a pack that is not sold",
			Handler:   cr.handleBuyUnknownPack,
		},
		api.Operation{
			Method: fiber.MethodGet, Path: creditsBalancePath, ID: "getCreditsBalance", Free: true,
			Summary: "Credit balance of the API key sent in X-API-Key, and the wallets that share it.",
			Params:  []api.Param{balanceKeyParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The key's balance.", creditsBalanceSchema),
				api.JSON(fiber.StatusUnauthorized, "X-API-Key missing (api_key_required), or not a key of this service (unknown_api_key).", creditsErrorSchema),
				api.JSON(fiber.StatusServiceUnavailable, "The server has no ledger configured.", creditsErrorSchema),
			},
			NoTool:  "account housekeeping for the key's owner, not a market question",
			Handler: cr.handleCreditsBalance,
		},
	)
}

// sendCreditsError answers status with a CreditsError body.
func sendCreditsError(c fiber.Ctx, status int, code, msg string) error {
	return api.SendError(c, status, code, msg)
}

// undoLocalsKey holds the undo of a purchase until the paywall settles.
const undoLocalsKey = "mi.credits.undo"

// UndoUnsettled takes back what the handler of an x402-paid call granted,
// for a call whose handler answered 2xx but whose payment then failed to
// settle. The paywall calls it before answering 402; a call that granted
// nothing returns nil. Today only the credits buy routes grant anything: the
// pack's credit is reversed (docs/credits.md).
func UndoUnsettled(c fiber.Ctx) error {
	undo, ok := c.Locals(undoLocalsKey).(func(context.Context) error)
	if !ok {
		return nil
	}
	c.Locals(undoLocalsKey, nil)
	return undo(context.Background())
}

// purchaseBody is the CreditsPurchase schema.
type purchaseBody struct {
	APIKey          *string `json:"apiKey"`
	ToppedUp        bool    `json:"toppedUp"`
	Pack            string  `json:"pack"`
	PriceUSD        string  `json:"priceUsd"`
	CreditUSD       string  `json:"creditUsd"`
	CreditMicroUSD  int64   `json:"creditMicroUsd"`
	BalanceUSD      string  `json:"balanceUsd"`
	BalanceMicroUSD int64   `json:"balanceMicroUsd"`
	Wallet          *string `json:"wallet"`
	Network         string  `json:"network"`
	Asset           string  `json:"asset"`
}

// buyHandler serves POST /api/v1/credits/buy/{pack} for pack p. The paywall
// has verified the x402 payment before; the handler records the purchase
// (ledger.SQL.Buy): a new key holding the credit, or the top-up of the key
// in X-API-Key, and the paying wallet linked to the same balance.
func (cr *Credits) buyHandler(p Pack) fiber.Handler {
	route := creditsBuyRouteKey + p.Name
	return func(c fiber.Ctx) error {
		if cr.ledger == nil {
			return sendCreditsError(c, fiber.StatusServiceUnavailable, codeUnavailable, "credits are not available on this server")
		}
		pay, ok := api.PaymentOf(c)
		if !ok || pay.Method != api.MethodX402 {
			return sendCreditsError(c, fiber.StatusPaymentRequired, codePaymentRequired,
				"credit packs are paid with x402 (USDC or EURC) only")
		}
		key := pay.APIKey
		if key == "" {
			key = c.Get("X-API-Key")
		}
		requestID, err := newRequestID("buy")
		if err != nil {
			return err
		}
		// The paying wallet holds the credit under its (namespace, address)
		// id; a payer the facilitator reported in an unknown form links no
		// wallet (the key still holds the credit).
		wallet, werr := ledger.WalletID(pay.Network, pay.Payer)
		if werr != nil && pay.Payer != "" {
			cr.logger.Warn("credit pack payer is not a wallet the ledger keys", "network", pay.Network, "err", werr)
		}
		res, err := cr.ledger.Buy(c.Context(), ledger.Purchase{
			APIKey:         key,
			Wallet:         wallet,
			CreditMicroUSD: p.CreditMicroUSD,
			Route:          route,
			Reason:         "pack " + p.Name + " paid in " + pay.AssetSymbol + " on " + pay.Network,
			RequestID:      requestID,
			At:             cr.now(),
		})
		if errors.Is(err, ledger.ErrUnknownKey) {
			return sendCreditsError(c, fiber.StatusUnauthorized, codeUnknownAPIKey,
				"X-API-Key is not a key of this service; send no X-API-Key to buy a new key")
		}
		if err != nil {
			return err
		}
		c.Locals(undoLocalsKey, func(ctx context.Context) error {
			_, err := cr.ledger.ReversePurchase(ctx, requestID)
			return err
		})
		body := purchaseBody{
			ToppedUp:        res.APIKey == "",
			Pack:            p.Name,
			PriceUSD:        api.PriceUSD(p.PriceMicroUSD),
			CreditUSD:       api.PriceUSD(p.CreditMicroUSD),
			CreditMicroUSD:  p.CreditMicroUSD,
			BalanceUSD:      api.PriceUSD(res.BalanceMicroUSD),
			BalanceMicroUSD: res.BalanceMicroUSD,
			Network:         pay.Network,
			Asset:           pay.AssetSymbol,
		}
		if res.APIKey != "" {
			body.APIKey = &res.APIKey
		}
		if wallet != "" {
			body.Wallet = &wallet
		}
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderCacheControl, "no-store")
		return api.SendJSON(c, fiber.StatusOK, b)
	}
}

// handleBuyUnknownPack answers 400 for a pack that is not sold.
func (cr *Credits) handleBuyUnknownPack(c fiber.Ctx) error {
	return api.SendParamError(c, &api.ParamError{
		Param:    "pack",
		Message:  "pack must be one of 5, 20, 50 (USD)",
		Accepted: creditPackNames(),
	})
}

// balanceBody is the CreditsBalance schema.
type balanceBody struct {
	BalanceUSD      string   `json:"balanceUsd"`
	BalanceMicroUSD int64    `json:"balanceMicroUsd"`
	Wallets         []string `json:"wallets"`
	Keys            int      `json:"keys"`
}

// handleCreditsBalance serves GET /api/v1/credits/balance: free, needs
// X-API-Key; 401 without it (checked first) or for a key the ledger does not
// know; 503 with a key on a server without a ledger.
func (cr *Credits) handleCreditsBalance(c fiber.Ctx) error {
	key := c.Get("X-API-Key")
	if key == "" {
		return sendCreditsError(c, fiber.StatusUnauthorized, codeAPIKeyRequired, "send the API key in the X-API-Key header")
	}
	if cr.ledger == nil {
		return sendCreditsError(c, fiber.StatusServiceUnavailable, codeUnavailable, "credits are not available on this server")
	}
	a, err := cr.ledger.KeyAccount(c.Context(), key)
	if errors.Is(err, ledger.ErrUnknownKey) {
		return sendCreditsError(c, fiber.StatusUnauthorized, codeUnknownAPIKey, "X-API-Key is not a key of this service")
	}
	if err != nil {
		return err
	}
	body := balanceBody{BalanceUSD: api.PriceUSD(a.BalanceMicroUSD), BalanceMicroUSD: a.BalanceMicroUSD, Wallets: a.Wallets, Keys: a.Keys}
	if body.Wallets == nil {
		body.Wallets = []string{}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return api.SendJSON(c, fiber.StatusOK, b)
}

// newRequestID is a random id for a ledger entry of this call.
func newRequestID(prefix string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + "-" + hex.EncodeToString(b[:]) + "-" + time.Now().UTC().Format("20060102T150405"), nil
}
