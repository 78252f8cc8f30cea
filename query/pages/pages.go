// Package pages is the room of the pages people read in a browser
// (docs/pages.md): the home page (GET /), and the HTML representations of
// the free routes that answer JSON to everyone else on the same path —
// /status, /coverage, /track-record and /api/v1/datasets. A page shows
// exactly the figures its JSON route answers: the HTML representation runs
// the route's own handler and renders its answer, and the home page reads
// the free routes through an internal copy of the route table (as the MCP
// tools do). Content negotiation (web.WantsHTML) leaves every JSON answer
// as it was: only a request that names text/html gets a page.
package pages

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/query/web"
)

//go:embed templates
var templateFS embed.FS

// Config configures the pages.
type Config struct {
	// Table returns the server's route table once it is built: the home
	// page lists its routes and prices and reads the free ones.
	Table func() []api.Operation
	// CardCheckout says whether card payment is configured (the home page
	// links the checkout page, or says it is off).
	CardCheckout bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger receives pages that cannot be rendered; nil discards.
	Logger *slog.Logger
}

// Pages serves the pages.
type Pages struct {
	c        Config
	once     sync.Once
	internal *fiber.App
	tpl      map[string]*template.Template
}

// New returns the pages of c.
func New(c Config) *Pages {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pages{c: c, tpl: map[string]*template.Template{}}
	for _, name := range []string{"home", "status", "coverage", "trackrecord", "datasets"} {
		p.tpl[name] = web.Templates(templateFS, "templates/"+name+".html", "templates/parts.html")
	}
	return p
}

// representations are the JSON routes that have an HTML page on the same
// path, and the page's renderer.
func (p *Pages) representations() map[string]renderer {
	return map[string]renderer{
		"GET /status":          p.renderStatus,
		"GET /coverage":        p.renderCoverage,
		"GET /track-record":    p.renderTrackRecord,
		"GET /api/v1/datasets": p.renderDatasets,
	}
}

// renderer renders the page of a JSON answer (status and body as the route
// answered them).
type renderer func(c fiber.Ctx, status int, body []byte) error

// Represent returns ops with the HTML representation added to the routes
// that have a page: the handler answers the route's JSON as before, unless
// the request prefers HTML (web.WantsHTML), in which case it renders the
// same answer as a page; openapi.json lists text/html beside
// application/json for their answers. Both answers carry Vary: Accept.
func (p *Pages) Represent(ops []api.Operation) []api.Operation {
	out := slices.Clone(ops)
	reps := p.representations()
	for i, op := range out {
		render, ok := reps[op.Key()]
		if !ok {
			continue
		}
		out[i] = represent(op, render)
	}
	return out
}

func represent(op api.Operation, render renderer) api.Operation {
	next := op.Handler
	op.Handler = func(c fiber.Ctx) error {
		c.Vary(fiber.HeaderAccept)
		if !web.WantsHTML(c.Get(fiber.HeaderAccept)) {
			return next(c)
		}
		if err := next(c); err != nil {
			return err
		}
		body := bytes.Clone(c.Response().Body())
		return render(c, c.Response().StatusCode(), body)
	}
	op.Responses = slices.Clone(op.Responses)
	for i, r := range op.Responses {
		if r.Status < 300 || r.Status == fiber.StatusNotFound {
			r.Content = append(slices.Clone(r.Content), api.Content{Type: "text/html", Schema: schema.String})
			r.Desc += " A browser (Accept naming text/html) gets the same answer as a page (docs/pages.md)."
			op.Responses[i] = r
		}
	}
	return op
}

// fetch answers a free route of the table through an internal copy of it,
// as JSON: the home page's figures are the routes' own answers.
func (p *Pages) fetch(ctx context.Context, path string) (int, []byte) {
	p.once.Do(func() {
		var ops []api.Operation
		for _, op := range p.c.Table() {
			if op.Free && !op.BilledInside && op.Method == fiber.MethodGet && op.Path != homePath {
				ops = append(ops, op)
			}
		}
		p.internal = fiber.New(fiber.Config{AppName: "mi-pages"})
		api.Mount(p.internal, ops, p.c.Now, nil)
	})
	req, err := http.NewRequestWithContext(ctx, fiber.MethodGet, path, nil)
	if err != nil {
		panic("BUG: the home page asks for " + path + ": " + err.Error())
	}
	req.Header.Set(fiber.HeaderAccept, fiber.MIMEApplicationJSON)
	resp, err := p.internal.Test(req, fiber.TestConfig{Timeout: 30 * time.Second})
	if err != nil {
		p.c.Logger.Error("cannot read a route for the home page", "path", path, "err", err)
		return fiber.StatusInternalServerError, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fiber.StatusInternalServerError, nil
	}
	return resp.StatusCode, b
}

// render answers the page name.
func (p *Pages) render(c fiber.Ctx, status int, name string, page web.Page) error {
	page.Now = p.c.Now()
	return web.Render(c, status, p.tpl[name], page)
}
