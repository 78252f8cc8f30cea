// Package paywall charges the priced routes (docs/payments.md,
// docs/credits.md): it wraps a priced operation's handler and accepts, in
// this order, an API key of prepaid credits (X-API-Key), a signed-in
// wallet's credit (SIGN-IN-WITH-X) or an x402 v2 payment
// (PAYMENT-SIGNATURE or X-PAYMENT), else answers 402 with the quote. Only a
// 2xx answer is charged: credits are refunded and x402 is not settled
// otherwise. It also serves the credit packs and the balance (credits.go).
// Its subpackages are x402 (the protocol, verification, settlement,
// sign-in) and ledger (keys, balances, wallets, nonces in SQL).
package paywall

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
)

// HeaderAPIKey is the header of a prepaid-credits API key.
const HeaderAPIKey = "X-API-Key"

// Operator is who runs the service, shown by /transparency and
// security.txt.
type Operator struct {
	// Name of the operator, e.g. "Example Markets Ltd".
	Name string
	// URL of the operator's site.
	URL string
	// SecurityContact is the RFC 9116 Contact (mailto: or https:).
	SecurityContact string
}

// Config configures the x402 / credits / sign-in paywall.
type Config struct {
	// Store is the ledger: API key and wallet credit, used nonces and proofs.
	Store ledger.Store
	// Offers are the networks, assets and payTo addresses quoted. A route
	// quotes the offers whose asset symbol is in its Assets (USDC when nil).
	Offers []x402.Offer
	// Settler verifies on chain and settles x402 payments.
	Settler x402.Settler
	// PublicURL is the service's public origin, e.g. https://api.example.com;
	// resource URLs and the sign-in domain derive from it.
	PublicURL string
	// SignInCallers are RPC clients per eip155 network for EIP-1271 smart
	// wallet sign-in; nil accepts EOA signatures only.
	SignInCallers map[string]ethereum.ContractCaller
	// UnpaidPerMinute is how many unpaid requests (answered with a bare
	// 402) one IP may make per minute; 0 means 120, < 0 no limit.
	UnpaidPerMinute int
	// Operator is shown by /transparency and /.well-known/security.txt.
	Operator Operator
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives settlement failures and ledger errors (never keys,
	// signatures or header values); nil discards.
	Logger *slog.Logger
}

// X402Paywall implements api.Paywall: X-API-Key (credits), SIGN-IN-WITH-X
// (wallet credit), PAYMENT-SIGNATURE or X-PAYMENT (x402 v2), else 402.
type X402Paywall struct {
	c       Config
	origin  string
	signIn  *x402.SignIn
	limiter *ipLimiter
}

// New checks cfg and returns the paywall.
func New(cfg Config) (*X402Paywall, error) {
	if cfg.Store == nil || cfg.Settler == nil {
		return nil, errors.New("cannot build the paywall: a ledger store and a settlement backend are required")
	}
	if len(cfg.Offers) == 0 {
		return nil, errors.New("cannot build the paywall: no payment offers (network, asset, payTo)")
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("cannot build the paywall: public URL %q is not an absolute URL", cfg.PublicURL)
	}
	for _, o := range cfg.Offers {
		if o.PayTo == "" || o.Asset.Address == "" {
			return nil, fmt.Errorf("cannot build the paywall: offer on %s lacks payTo or asset", o.Network)
		}
		if x402.IsEVM(o.Network) && (o.Asset.Name == "" || o.Asset.Version == "") {
			return nil, fmt.Errorf("cannot build the paywall: %s %s lacks its EIP-712 name and version", o.Network, o.Asset.Symbol)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	origin := u.Scheme + "://" + u.Host
	var chains []string
	for _, o := range cfg.Offers {
		if (x402.IsEVM(o.Network) || x402.IsSolana(o.Network)) && !slices.Contains(chains, o.Network) {
			chains = append(chains, o.Network)
		}
	}
	pw := &X402Paywall{c: cfg, origin: origin, signIn: &x402.SignIn{
		Domain: u.Hostname(), Origin: origin, Chains: chains,
		Statement: "Pay this call from the credit of your wallet.",
		Store:     cfg.Store, Callers: cfg.SignInCallers, Now: cfg.Now,
	}}
	if cfg.UnpaidPerMinute >= 0 {
		n := cfg.UnpaidPerMinute
		if n == 0 {
			n = 120
		}
		pw.limiter = newIPLimiter(n, cfg.Now)
	}
	return pw, nil
}

// paidRoute is what Wrap precomputes for one operation.
type paidRoute struct {
	r        api.Operation
	key      string
	accepts  []x402.PaymentRequirements
	symbols  map[string]string // asset address (lower) -> symbol
	priceUSD string
}

// Wrap implements api.Paywall.
func (pw *X402Paywall) Wrap(r api.Operation, next fiber.Handler) fiber.Handler {
	pr := &paidRoute{r: r, key: r.Key(), symbols: map[string]string{}, priceUSD: api.PriceUSD(r.Price)}
	pr.accepts = pw.Accepts(r)
	for _, o := range pw.c.Offers {
		pr.symbols[strings.ToLower(o.Asset.Address)] = o.Asset.Symbol
	}
	if len(pr.accepts) == 0 {
		panic("BUG: route " + pr.key + " has no payment offer for its assets")
	}
	return func(c fiber.Ctx) error { return pw.serve(c, pr, next) }
}

func (pw *X402Paywall) serve(c fiber.Ctx, pr *paidRoute, next fiber.Handler) error {
	key := c.Get(HeaderAPIKey)
	if key != "" && !pr.r.X402Only {
		return pw.payWithKey(c, pr, key, next)
	}
	if proof := c.Get(x402.HeaderSignInWithX); proof != "" && !pr.r.X402Only {
		return pw.payWithWallet(c, pr, proof, next)
	}
	pay := c.Get(x402.HeaderPaymentSignature)
	if pay == "" {
		pay = c.Get(x402.HeaderXPayment)
	}
	if pay != "" {
		return pw.payWithX402(c, pr, pay, key, next)
	}
	if pw.limiter != nil && !pw.limiter.allow(c.IP()) {
		c.Set(fiber.HeaderRetryAfter, "60")
		return api.SendError(c, fiber.StatusTooManyRequests, "rate_limited",
			"too many unpaid requests from this address; pay, or retry after a minute")
	}
	return pw.quote(c, pr, "payment_required", "this route costs "+pr.priceUSD+" USD per successful call; pay with x402, an API key or a wallet sign-in", nil)
}

func (pw *X402Paywall) charge(pr *paidRoute) ledger.Charge {
	return ledger.Charge{Route: pr.key, AmountMicroUSD: pr.r.Price, RequestID: newChargeID(), At: pw.c.Now()}
}

// refundContext outlives the request so a refund is not lost when the
// client goes away.
func refundContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// runCharged runs next and reports whether its answer is a success (2xx);
// an error returned by next counts as a failure.
func runCharged(c fiber.Ctx, next fiber.Handler) (bool, error) {
	err := next(c)
	status := c.Response().StatusCode()
	return err == nil && status >= 200 && status < 300, err
}

func (pw *X402Paywall) payWithKey(c fiber.Ctx, pr *paidRoute, key string, next fiber.Handler) error {
	ch := pw.charge(pr)
	if err := pw.c.Store.DebitKey(c.Context(), key, ch); err != nil {
		switch {
		case errors.Is(err, ledger.ErrUnknownKey):
			return pw.quote(c, pr, "invalid_api_key", "the X-API-Key is not known; buy credits or pay with x402", nil)
		case errors.Is(err, ledger.ErrInsufficientCredit):
			return pw.quote(c, pr, "insufficient_credit", "the credit of this API key does not cover "+pr.priceUSD+" USD; top it up or pay with x402", nil)
		}
		pw.c.Logger.Error("cannot debit an API key", "route", pr.key, "err", err)
		return api.SendError(c, fiber.StatusInternalServerError, api.CodeInternal, "internal server error")
	}
	api.SetPayment(c, api.Payment{Method: api.MethodCredits, APIKey: key, AmountAtomic: pr.r.Price})
	ok, err := runCharged(c, next)
	if !ok {
		ctx, cancel := refundContext()
		defer cancel()
		if rerr := pw.c.Store.RefundKey(ctx, key, ch); rerr != nil {
			pw.c.Logger.Error("cannot refund an API key", "route", pr.key, "request", ch.RequestID, "err", rerr)
		}
	}
	return err
}

func (pw *X402Paywall) payWithWallet(c fiber.Ctx, pr *paidRoute, header string, next fiber.Handler) error {
	proof, err := x402.DecodeSignIn(header)
	if err == nil {
		var wallet string
		wallet, err = pw.signIn.Verify(c.Context(), proof)
		if err == nil {
			return pw.debitWallet(c, pr, wallet, next)
		}
	}
	code := x402.Code(err)
	if errors.Is(err, x402.ErrSignInUsed) {
		code = "siwx_proof_used"
	} else if !isSignInError(err) {
		pw.c.Logger.Error("cannot verify a sign-in proof", "route", pr.key, "err", err)
		return api.SendError(c, fiber.StatusInternalServerError, api.CodeInternal, "internal server error")
	}
	return pw.quote(c, pr, code, "the SIGN-IN-WITH-X proof was refused: "+publicMessage(err), nil)
}

func isSignInError(err error) bool {
	for _, s := range []error{x402.ErrSignInInvalid, x402.ErrSignInExpired, x402.ErrSignInDomain,
		x402.ErrSignInUnsupported, x402.ErrSignInSignature, x402.ErrSignInUsed, x402.ErrInvalidNetwork} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func (pw *X402Paywall) debitWallet(c fiber.Ctx, pr *paidRoute, wallet string, next fiber.Handler) error {
	ch := pw.charge(pr)
	if err := pw.c.Store.DebitWallet(c.Context(), wallet, ch); err != nil {
		if !errors.Is(err, ledger.ErrInsufficientCredit) {
			pw.c.Logger.Error("cannot debit a wallet", "route", pr.key, "err", err)
			return api.SendError(c, fiber.StatusInternalServerError, api.CodeInternal, "internal server error")
		}
		bal, berr := pw.c.Store.WalletBalance(c.Context(), wallet)
		if berr != nil {
			pw.c.Logger.Error("cannot read a wallet balance", "route", pr.key, "err", berr)
		}
		return pw.quote(c, pr, "insufficient_credit", "the credit of this wallet does not cover "+pr.priceUSD+" USD; pay with x402 or buy a credit pack",
			&signInStatus{Wallet: wallet, BalanceMicroUSD: bal, PriceMicroUSD: pr.r.Price, Covered: false,
				Message: "wallet credit " + api.PriceUSD(bal) + " USD does not cover the price " + pr.priceUSD + " USD"})
	}
	api.SetPayment(c, api.Payment{Method: api.MethodWallet, Payer: wallet, AmountAtomic: pr.r.Price})
	ok, err := runCharged(c, next)
	if !ok {
		ctx, cancel := refundContext()
		defer cancel()
		if rerr := pw.c.Store.RefundWallet(ctx, wallet, ch); rerr != nil {
			pw.c.Logger.Error("cannot refund a wallet", "route", pr.key, "request", ch.RequestID, "err", rerr)
		}
	}
	return err
}

// payloadPayer is the payer under which a non-EVM payment's nonce (the
// hash of its payload) is reserved: the payer is known only from the
// facilitator, and the nonce is reserved before asking it.
const payloadPayer = "payload"

// payWithX402 checks the payment locally (match, and for EVM the exact
// authorization: payee, amount, validity window, signature), reserves its
// nonce, then asks the settlement backend to verify it, runs the handler
// and settles only a 2xx answer. Everything local comes first: a replayed,
// expired, underpaid or misaddressed payment never reaches a facilitator.
// A nonce stays reserved when the backend then refuses the payment (the
// client signs a new authorization, with a new nonce, as x402 clients do
// for every payment).
func (pw *X402Paywall) payWithX402(c fiber.Ctx, pr *paidRoute, header, apiKey string, next fiber.Handler) error {
	p, err := x402.DecodePaymentPayload(header)
	if err != nil {
		return pw.refuse(c, pr, err)
	}
	req, err := x402.Match(p, pr.accepts)
	if err != nil {
		return pw.refuse(c, pr, err)
	}
	// Non-EVM: the payload itself is the nonce (a Solana transaction is
	// signed once); its payer is named by the facilitator below.
	payer, nonce := payloadPayer, hex.EncodeToString(crypto.Keccak256(p.Payload))
	expires := pw.c.Now().Add(24 * time.Hour)
	if x402.IsEVM(req.Network) {
		v, err := x402.VerifyExactEVM(p, req, pw.c.Now())
		if err != nil {
			return pw.refuse(c, pr, err)
		}
		payer, nonce, expires = strings.ToLower(v.Payer.Hex()), v.Nonce.Hex(), v.Expires()
	}
	if err := pw.c.Store.ReserveNonce(c.Context(), req.Network, payer, nonce, expires); err != nil {
		if errors.Is(err, ledger.ErrNonceUsed) {
			return pw.refuse(c, pr, x402.ErrNonceUsed)
		}
		pw.c.Logger.Error("cannot reserve a payment nonce", "route", pr.key, "err", err)
		return api.SendError(c, fiber.StatusInternalServerError, api.CodeInternal, "internal server error")
	}
	got, err := pw.c.Settler.Verify(c.Context(), p, req)
	if err != nil {
		return pw.refuse(c, pr, err)
	}
	if payer == payloadPayer {
		payer = got
	}
	api.SetPayment(c, api.Payment{Method: api.MethodX402, Network: req.Network, Asset: req.Asset,
		AssetSymbol: pr.symbols[strings.ToLower(req.Asset)], Payer: payer, APIKey: apiKey, AmountAtomic: pr.r.Price})
	if ok, err := runCharged(c, next); !ok {
		return err // not settled: the client pays nothing for an error
	}
	sctx, cancel := refundContext()
	defer cancel()
	resp, err := pw.c.Settler.Settle(sctx, p, req)
	if err != nil || !resp.Success {
		if err == nil {
			err = x402.ErrSettleFailed
		}
		pw.c.Logger.Warn("payment settlement failed", "route", pr.key, "network", req.Network, "payer", payer, "reason", x402.Reason(err))
		resp.Success, resp.ErrorReason, resp.Transaction = false, x402.Reason(err), ""
		resp.Network, resp.Payer = req.Network, payer
		// Take back what the handler granted (credits bought), then drop
		// its answer: no data without payment.
		if uerr := UndoUnsettled(c); uerr != nil {
			pw.c.Logger.Error("cannot undo an unsettled call", "route", pr.key, "err", uerr)
		}
		c.Response().ResetBody()
		c.Response().Header.Del(fiber.HeaderContentEncoding)
		if h, herr := x402.EncodeHeader(resp); herr == nil {
			c.Set(x402.HeaderPaymentResponse, h)
		}
		return pw.quote(c, pr, x402.Reason(err), "the payment could not be settled; nothing was charged", nil)
	}
	h, err := x402.EncodeHeader(resp)
	if err != nil {
		panic("BUG: cannot encode a settlement response: " + err.Error())
	}
	c.Set(x402.HeaderPaymentResponse, h)
	return nil
}

// refuse answers 402 for a refused payment, with the x402 reason.
func (pw *X402Paywall) refuse(c fiber.Ctx, pr *paidRoute, err error) error {
	if errors.Is(err, x402.ErrVerifyFailed) || errors.Is(err, x402.ErrSettleFailed) {
		pw.c.Logger.Warn("payment verification failed", "route", pr.key, "reason", x402.Reason(err))
	}
	return pw.quote(c, pr, x402.Reason(err), "the payment was refused: "+publicMessage(err), nil)
}

// publicMessage is the sentinel text of err, never the wrapped details of
// a backend.
func publicMessage(err error) string {
	for _, s := range []error{x402.ErrInvalidVersion, x402.ErrMalformedHeader, x402.ErrInvalidPayload, x402.ErrUnsupportedScheme,
		x402.ErrInvalidNetwork, x402.ErrNoMatch, x402.ErrMissingDomain, x402.ErrRecipientMismatch, x402.ErrValueMismatch,
		x402.ErrValidAfter, x402.ErrValidBefore, x402.ErrInvalidSignature, x402.ErrMalleableSignature, x402.ErrNonceUsed,
		x402.ErrInsufficientFunds, x402.ErrVerifyFailed, x402.ErrSettleFailed, x402.ErrSignInInvalid, x402.ErrSignInExpired,
		x402.ErrSignInDomain, x402.ErrSignInUnsupported, x402.ErrSignInSignature, x402.ErrSignInUsed} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return "payment error"
}

// signInStatus is the signIn entry of a 402 when a wallet's credit does
// not cover the call.
type signInStatus struct {
	Wallet          string `json:"wallet"`
	BalanceMicroUSD int64  `json:"balanceMicroUsd"`
	PriceMicroUSD   int64  `json:"priceMicroUsd"`
	Covered         bool   `json:"covered"`
	Message         string `json:"message"`
}

// quoteBody is the JSON body of a 402: the PaymentRequired of the header
// plus the price in USD, a message and the signIn entry.
type quoteBody struct {
	x402.PaymentRequired
	Message string        `json:"message"`
	Price   quotePrice    `json:"price"`
	SignIn  *signInStatus `json:"signIn,omitempty"`
	Charged bool          `json:"charged"`
}

type quotePrice struct {
	USD      string `json:"usd"`
	MicroUSD int64  `json:"microUsd"`
}

// quote answers 402 with the PAYMENT-REQUIRED header and the JSON body.
func (pw *X402Paywall) quote(c fiber.Ctx, pr *paidRoute, code, msg string, si *signInStatus) error {
	resourceURL := pw.origin + c.OriginalURL()
	required := x402.PaymentRequired{
		X402Version: x402.Version,
		Error:       code,
		Resource:    &x402.ResourceInfo{URL: resourceURL, Description: pr.r.Summary, MimeType: fiber.MIMEApplicationJSON},
		Accepts:     pr.accepts,
	}
	if !pr.r.X402Only {
		required.Extensions = map[string]any{x402.ExtensionSignIn: pw.signIn.Challenge(resourceURL)}
	}
	h, err := x402.EncodeHeader(required)
	if err != nil {
		panic("BUG: cannot encode a 402: " + err.Error())
	}
	body, err := json.Marshal(quoteBody{PaymentRequired: required, Message: msg,
		Price: quotePrice{USD: pr.priceUSD, MicroUSD: pr.r.Price}, SignIn: si})
	if err != nil {
		panic("BUG: cannot encode a 402 body: " + err.Error())
	}
	c.Set(x402.HeaderPaymentRequired, h)
	return api.SendJSON(c, fiber.StatusPaymentRequired, body)
}

// newChargeID is a random id tying a debit to its refund.
func newChargeID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("BUG: crypto/rand failed: " + err.Error())
	}
	return "req_" + hex.EncodeToString(b[:])
}

// ipLimiter is a token bucket per client IP for unpaid requests.
type ipLimiter struct {
	mu      sync.Mutex
	perMin  float64
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// maxLimiterIPs bounds the limiter's memory; beyond it idle buckets go.
const maxLimiterIPs = 100_000

func newIPLimiter(perMinute int, now func() time.Time) *ipLimiter {
	return &ipLimiter{perMin: float64(perMinute), now: now, buckets: map[string]*bucket{}}
}

// allow takes one token of ip's bucket (burst = the per-minute rate).
func (l *ipLimiter) allow(ip string) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[ip]
	if !ok {
		if len(l.buckets) >= maxLimiterIPs {
			for k, v := range l.buckets {
				if now.Sub(v.last) > time.Minute {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{tokens: l.perMin, last: now}
		l.buckets[ip] = b
	}
	b.tokens = min(l.perMin, b.tokens+now.Sub(b.last).Minutes()*l.perMin)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// String describes the configuration without secrets, for startup logs.
func (pw *X402Paywall) String() string {
	var nets []string
	for _, o := range pw.c.Offers {
		nets = append(nets, o.Network+"/"+o.Asset.Symbol)
	}
	return "x402 paywall at " + pw.origin + " for " + strings.Join(nets, ", ") + ", unpaid limit " + strconv.Itoa(pw.c.UnpaidPerMinute) + "/min"
}

// Origin is the service's public origin, e.g. https://api.example.com.
func (pw *X402Paywall) Origin() string { return pw.origin }

// Operator is the configured operator.
func (pw *X402Paywall) Operator() Operator { return pw.c.Operator }

// Offers are the configured networks, assets and payTo addresses.
func (pw *X402Paywall) Offers() []x402.Offer { return slices.Clone(pw.c.Offers) }

// Accepts are the requirements the paywall quotes for op: its price in
// every offer of its assets (USDC when the operation names none).
func (pw *X402Paywall) Accepts(op api.Operation) []x402.PaymentRequirements {
	assets := op.Assets
	if len(assets) == 0 {
		assets = []string{"USDC"}
	}
	out := []x402.PaymentRequirements{}
	for _, o := range pw.c.Offers {
		if slices.Contains(assets, o.Asset.Symbol) {
			out = append(out, o.Requirements(op.Price))
		}
	}
	return out
}
