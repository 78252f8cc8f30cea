package checkout

import (
	"embed"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/query/web"
)

//go:embed templates
var templateFS embed.FS

var (
	checkoutPage = web.Templates(templateFS, "templates/checkout.html")
	successPage  = web.Templates(templateFS, "templates/success.html")
	offPage      = web.Templates(templateFS, "templates/off.html")
)

var (
	canceledParam  = api.Bool{Name: "canceled", Desc: "Set by the payment page's cancel link: the page says nothing was charged."}
	successIDParam = api.Text{Name: "session_id", Required: true, Desc: "The checkout session Stripe returns the buyer with.",
		Schema: schema.Obj{{"type", "string"}, {"pattern", sessionIDShape.String()}}, Check: func(raw string) *api.ParamError {
			if e := checkSessionID(raw); e != nil {
				e.Param = "session_id"
				return e
			}
			return nil
		}}
	htmlPage = []api.Content{{Type: "text/html", Schema: schema.String}}
)

func (k *Checkout) pageOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: pagePath, ID: "getCheckoutPage", Free: true,
		Summary: "Page: choose a credit pack and pay by card (docs/pages.md).",
		Params:  []api.Param{canceledParam},
		Responses: []api.Response{
			{Status: fiber.StatusOK, Desc: "The packs, each with a button that opens the card payment page.", Content: htmlPage},
			{Status: fiber.StatusNotFound, Desc: "Card checkout is not configured: the page says how to pay with x402.", Content: htmlPage},
		},
		NoTool:  "a page for people",
		Handler: k.handlePage,
	}
}

func (k *Checkout) successOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: successPath, ID: "getCheckoutSuccessPage", Free: true,
		Summary: "Page Stripe returns the buyer to: shows the new API key once, with a copy button.",
		Params:  []api.Param{successIDParam},
		Responses: []api.Response{
			{Status: fiber.StatusOK, Desc: "The key (this once), the top-up, or the state of the payment (waiting, already shown, ended).", Content: htmlPage},
			{Status: fiber.StatusNotFound, Desc: "No checkout of this server has that session, or card checkout is off.", Content: htmlPage},
			{Status: fiber.StatusBadGateway, Desc: "Stripe did not answer: the page asks to reload.", Content: htmlPage},
		},
		NoTool:  "a page for people",
		Handler: k.handleSuccess,
	}
}

// packView is a pack on the checkout page.
type packView struct {
	Name, PriceUSD, CreditUSD string
	BonusUSD                  string // "" when the credit is the price
	Action                    string
}

func (k *Checkout) sendOffPage(c fiber.Ctx) error {
	return web.Render(c, fiber.StatusNotFound, offPage, web.Page{Title: "Buy credits", Nav: web.NavCheckout, Now: k.c.Now(),
		Description: "Card payment is not configured on this server.", Data: packViews()})
}

func packViews() []packView {
	var out []packView
	for _, p := range paywall.Packs() {
		v := packView{Name: p.Name, PriceUSD: web.USD(p.PriceMicroUSD), CreditUSD: web.USD(p.CreditMicroUSD),
			Action: strings.Replace(createPath, ":pack", p.Name, 1)}
		if p.CreditMicroUSD > p.PriceMicroUSD {
			v.BonusUSD = web.USD(p.CreditMicroUSD - p.PriceMicroUSD)
		}
		out = append(out, v)
	}
	return out
}

// handlePage serves GET /checkout.
func (k *Checkout) handlePage(c fiber.Ctx) error {
	if !k.Enabled() {
		return k.sendOffPage(c)
	}
	return web.Render(c, fiber.StatusOK, checkoutPage, web.Page{Title: "Buy credits", Nav: web.NavCheckout, Now: k.c.Now(),
		Description: "Prepaid credit for every paid route, paid by card. Each call costs its listed price; answers of 400 or above are refunded; credit never expires.",
		Data: struct {
			Packs    []packView
			Canceled bool
			Origin   string
		}{packViews(), canceledParam.Get(c), k.public}})
}

// successView is what the success page shows.
type successView struct {
	// State: key (shown now), shown (before), topup, waiting, ended,
	// unknown, error.
	State     string
	Key       string
	Session   ledger.Checkout
	CreditUSD string
	Where     string
	Origin    string
}

// handleSuccess serves GET /checkout/success?session_id=…: the success page
// shows the key once, like the session route, whichever comes first.
func (k *Checkout) handleSuccess(c fiber.Ctx) error {
	if !k.Enabled() {
		return k.sendOffPage(c)
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	id := strings.Clone(successIDParam.Get(c))
	if id == "" {
		return api.SendParamError(c, &api.ParamError{Param: "session_id", Message: "session_id is required: the payment page returns with it",
			Range: sessionIDShape.String()})
	}
	s, key, err := k.reveal(c.Context(), id, ledger.ShownOnPage)
	v := successView{Session: s, CreditUSD: web.USD(s.CreditMicroUSD), Where: shownWhere(s.ShownVia), Origin: k.public}
	page := web.Page{Title: "Payment", Nav: web.NavCheckout, Now: k.c.Now(), Data: &v}
	status := fiber.StatusOK
	switch {
	case errors.Is(err, ledger.ErrUnknownCheckout):
		v.State, status = "unknown", fiber.StatusNotFound
	case errors.Is(err, errProcessor):
		v.State, status, page.Refresh = "error", fiber.StatusBadGateway, 5
	case errors.Is(err, ledger.ErrCheckoutMismatch):
		v.State = "mismatch"
	case errors.Is(err, ledger.ErrKeyAlreadyShown):
		v.State = "shown"
	case errors.Is(err, ledger.ErrCheckoutUnpaid) && s.Status == ledger.CheckoutOpen:
		v.State, page.Refresh = "waiting", 3
	case errors.Is(err, ledger.ErrCheckoutUnpaid):
		v.State = "ended"
	case err != nil:
		return err
	case s.TopUp:
		v.State = "topup"
	default:
		v.State, v.Key = "key", key
		k.c.Logger.Info("card checkout key shown", "session", id, "via", ledger.ShownOnPage)
	}
	switch v.State {
	case "key":
		page.Title, page.Description = "Your API key", "Payment received. Copy your key now: it is shown this once."
	case "topup":
		page.Title = "Credit added"
	case "waiting":
		page.Description = "Waiting for the card processor to confirm the payment; this page reloads by itself."
	}
	return web.Render(c, status, successPage, page)
}
