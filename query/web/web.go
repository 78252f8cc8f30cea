// Package web is the vocabulary of the pages people read in a browser
// (docs/pages.md): which requests get HTML (WantsHTML), the one layout
// every page shares, the template functions that format figures, the
// headers of a page (Content-Security-Policy, Vary), and the embedded
// assets (the site's CSS and script, and the vendored chart library) with
// the route that serves them. Pages are rendered on the server with
// html/template; nothing is built to run them. Rooms that render pages
// import it as they import query/api; it imports no room.
package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
)

//go:embed templates/layout.html
var layoutFS embed.FS

// WantsHTML reports whether a request with this Accept header gets the HTML
// page where a path answers both HTML and JSON. Only a header that names
// text/html (or application/xhtml+xml) itself, with a quality above 0 and
// above any quality it gives application/json, gets HTML: no header, */*,
// text/*, application/json and every header an API client sends today keep
// getting JSON. Browsers send text/html first for a page they navigate to.
func WantsHTML(accept string) bool {
	if len(accept) > maxAccept {
		accept = accept[:maxAccept]
	}
	html, json := -1.0, -1.0
	for len(accept) > 0 {
		var part string
		part, accept, _ = strings.Cut(accept, ",")
		typ, params, _ := strings.Cut(part, ";")
		typ = strings.ToLower(strings.TrimSpace(typ))
		q := quality(params)
		switch typ {
		case "text/html", "application/xhtml+xml":
			html = max(html, q)
		case "application/json":
			json = max(json, q)
		}
	}
	return html > 0 && html > json
}

// maxAccept bounds the work on a hostile Accept header.
const maxAccept = 4096

// quality is the q parameter of a media range (1 when absent, 0 when it is
// not a number between 0 and 1).
func quality(params string) float64 {
	for len(params) > 0 {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(q >= 0 && q <= 1) {
			return 0
		}
		return q
	}
	return 1
}

// Page is one rendered page: what the layout shows around it and the data
// of its "content" template.
type Page struct {
	// Title is the <title> and the page's heading.
	Title string
	// Nav is the navigation entry of the page: NavHome, NavStatus, …
	Nav string
	// Description is the meta description and the line under the heading.
	Description string
	// Refresh reloads the page after that many seconds (0: never), for
	// pages that wait for something (a payment).
	Refresh int
	// Now is when the page was rendered; ages are computed against it.
	Now time.Time
	// Data is what the page's "content" template reads.
	Data any
}

// Navigation entries of the layout.
const (
	NavHome        = "home"
	NavStatus      = "status"
	NavCoverage    = "coverage"
	NavTrackRecord = "track-record"
	NavDatasets    = "datasets"
	NavCheckout    = "checkout"
)

// navItems are the layout's navigation links, in order.
var navItems = []struct{ ID, Href, Label string }{
	{NavHome, "/", "Home"},
	{NavStatus, "/status", "Status"},
	{NavCoverage, "/coverage", "Coverage"},
	{NavTrackRecord, "/track-record", "Track record"},
	{NavDatasets, "/api/v1/datasets", "Datasets"},
	{NavCheckout, "/checkout", "Buy credits"},
}

// Templates returns the template of one page: the layout with the page's
// file(s) from fsys, which define "content". A template that does not
// parse is a bug of the binary and panics.
func Templates(fsys fs.FS, patterns ...string) *template.Template {
	t := template.Must(template.New("layout.html").Funcs(Funcs).ParseFS(layoutFS, "templates/layout.html"))
	return template.Must(t.ParseFS(fsys, patterns...))
}

// Render answers status with the page p rendered by t (from Templates), as
// HTML with the page headers: a Content-Security-Policy that allows this
// origin's scripts, styles and requests only (and the card processor's page
// as a form target), no caching by shared caches, and Vary: Accept for paths
// that also answer JSON.
func Render(c fiber.Ctx, status int, t *template.Template, p Page) error {
	if p.Now.IsZero() {
		p.Now = time.Now()
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout.html", p); err != nil {
		return fmt.Errorf("cannot render the page %q: %w", p.Title, err)
	}
	SetPageHeaders(c)
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Response().SetBodyRaw(b.Bytes())
	return nil
}

// ContentSecurityPolicy is the policy of every page.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self' https://checkout.stripe.com; base-uri 'none'; frame-ancestors 'none'"

// SetPageHeaders sets the headers of an HTML page; a page that set its own
// Referrer-Policy or Cache-Control keeps it.
func SetPageHeaders(c fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, ContentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	for _, h := range [][2]string{{fiber.HeaderReferrerPolicy, "same-origin"}, {fiber.HeaderCacheControl, "private, no-cache"}} {
		if c.Response().Header.Peek(h[0]) == nil {
			c.Set(h[0], h[1])
		}
	}
}

// Funcs are the template functions of every page.
var Funcs = template.FuncMap{
	"nav":      func() any { return navItems },
	"asset":    AssetURL,
	"usd":      USD,
	"pct":      Percent,
	"num":      Number,
	"signed":   Signed,
	"count":    Count,
	"ms":       Millis,
	"age":      Age,
	"ageMs":    AgeMillis,
	"datetime": DateTime,
	"inc":      func(i int) int { return i + 1 },
	"deref":    func(f *float64) float64 { return *f },
}

// USD formats micro-USD as decimal USD without trailing zeros ("0.005").
func USD(micro int64) string {
	s := strconv.FormatInt(micro/1_000_000, 10)
	if frac := micro % 1_000_000; frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatInt(1_000_000+frac, 10)[1:], "0")
	}
	return s
}

// Percent formats a percentage with one decimal, "65.5 %"; "–" for NaN.
func Percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " %"
}

// Number formats a figure with up to digits significant decimals, e.g.
// 3001.41 or 0.0543.
func Number(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return Count(int64(math.Round(v)))
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Signed is Number with a sign: "+0.054", "-1.20".
func Signed(v float64) string {
	s := Number(v)
	if v > 0 {
		return "+" + s
	}
	return s
}

// Count formats an integer with thin spaces between thousands: 306 422.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Millis formats a duration in milliseconds for people: "850 ms", "12 s",
// "41 min", "3 h 5 min", "2 d 4 h".
func Millis(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return strconv.FormatInt(ms, 10) + " ms"
	case d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	case d < time.Hour:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	case d < 24*time.Hour:
		return strconv.FormatInt(int64(d/time.Hour), 10) + " h " + strconv.FormatInt(int64(d%time.Hour/time.Minute), 10) + " min"
	}
	return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + " d " + strconv.FormatInt(int64(d%(24*time.Hour)/time.Hour), 10) + " h"
}

// AgeMillis is Millis of a pointer that may be null ("–").
func AgeMillis(ms *int64) string {
	if ms == nil {
		return "–"
	}
	return Millis(*ms)
}

// Age is how long before now an RFC 3339 time was, for people ("41 min");
// "–" for an empty or unreadable time.
func Age(rfc3339 string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		return "–"
	}
	return Millis(now.Sub(t).Milliseconds())
}

// DateTime shows an RFC 3339 time as "2026-11-26 02:07:31 UTC"; the input
// when it does not parse.
func DateTime(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// Figure is a chart on a page ({{template "chart" .}}): site.js draws Spec
// with uPlot into a box labelled Label; the same figures are in a table
// beside it, for readers without the script and for screen readers.
type Figure struct {
	Label   string
	Caption string
	Spec    Chart
}

// Chart is what site.js draws: bars over labelled categories, or lines over
// time.
type Chart struct {
	// Kind is "bars" (Labels on x) or "line" (X on x).
	Kind   string   `json:"kind"`
	Labels []string `json:"labels,omitempty"`
	// X are Unix seconds of a line chart.
	X      []int64       `json:"x,omitempty"`
	Series []ChartSeries `json:"series"`
	// Unit is appended to the values of the y axis, e.g. " %".
	Unit string `json:"unit,omitempty"`
	// Range fixes the y axis, e.g. [0, 100]; nil fits the data.
	Range  []float64 `json:"range,omitempty"`
	Height int       `json:"height,omitempty"`
}

// ChartSeries is one series; a nil value is a gap.
type ChartSeries struct {
	Label  string     `json:"label"`
	Values []*float64 `json:"values"`
}
