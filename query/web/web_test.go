package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
)

func TestWantsHTML(t *testing.T) {
	f := func(accept string, want bool) {
		t.Helper()
		if got := WantsHTML(accept); got != want {
			t.Errorf("WantsHTML(%q) = %v, want %v", accept, got, want)
		}
	}
	// What agents send today: JSON.
	f("", false)
	f("*/*", false)
	f("application/json", false)
	f("application/json, text/event-stream", false)
	f("text/*", false)
	f("text/plain", false)
	f("application/json, text/html", false)                        // a tie goes to JSON
	f("text/html;q=0.5, application/json", false)                  // JSON preferred
	f("text/html;q=0, */*", false)                                 // HTML refused
	f("text/html;q=abc", false)                                    // unreadable quality
	f("text/html;q=2", false)                                      // out of range
	f("application/json;q=0.9, text/html;q=0.8, */*;q=0.1", false) // JSON preferred
	// What browsers send when they navigate: HTML.
	f("text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7", true)
	f("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true)
	f("TEXT/HTML", true)
	f(" text/html ; charset=utf-8 ; q=0.7 , application/json;q=0.5", true)
	f("application/xhtml+xml", true)
	f(strings.Repeat("x/y, ", 2000)+"text/html", false) // past the bound: not read
}

func FuzzWantsHTML(f *testing.F) {
	for _, s := range []string{"", "*/*", "text/html", "text/html;q=0.9, application/json;q=0.95", "text/html;;q=;,", "\x00;q=1e309"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, accept string) {
		got := WantsHTML(accept)
		// Never HTML unless the header names it.
		if got && !strings.Contains(strings.ToLower(accept), "html") {
			t.Fatalf("WantsHTML(%q) without html in it", accept)
		}
	})
}

func TestFormats(t *testing.T) {
	f := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	f(USD(5_000), "0.005")
	f(USD(22_000_000), "22")
	f(USD(1_500_000), "1.5")
	f(Percent(65.51724), "65.5 %")
	f(Count(306422), "306\u202f422")
	f(Count(-1000), "-1\u202f000")
	f(Count(999), "999")
	f(Number(3001.4118), "3\u202f001")
	f(Number(12.345), "12.35")
	f(Number(0.054270624), "0.0543")
	f(Number(0), "0")
	f(Signed(0.0543), "+0.0543")
	f(Signed(-1.2), "-1.20")
	f(Millis(850), "850 ms")
	f(Millis(12_400), "12 s")
	f(Millis(2468094), "41 min")
	f(Millis(3*3600_000+5*60_000), "3 h 5 min")
	f(Millis(52*3600_000), "2 d 4 h")
	f(Millis(-5), "0 ms")
	now := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	f(Age("2026-11-26T02:19:00.5Z", now), "40 min")
	f(Age("", now), "–")
	f(DateTime("2026-11-26T02:07:31.665Z"), "2026-11-26 02:07:31 UTC")
	f(AgeMillis(nil), "–")
}

func TestRender(t *testing.T) {
	fsys := fstest.MapFS{"p.html": {Data: []byte(`{{define "content"}}<p id="x">{{.Data}}</p>{{template "chart" .Data}}{{end}}`)}}
	tpl := Templates(fsys, "p.html")
	app := fiber.New()
	app.Get("/", func(c fiber.Ctx) error {
		return Render(c, fiber.StatusOK, tpl, Page{Title: "T <1>", Nav: NavStatus, Data: Figure{Label: "L", Spec: Chart{Kind: "bars",
			Labels: []string{"</script>"}, Series: []ChartSeries{{Label: "s", Values: []*float64{nil}}}}}})
	})
	resp, err := app.Test(httptest.NewRequest("GET", "/", nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	s := string(body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		resp.Header.Get("Content-Security-Policy") != ContentSecurityPolicy {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	for _, want := range []string{`<title>T &lt;1&gt; · Market Intelligence</title>`, `<a href="/status" aria-current="page">Status</a>`,
		`<script type="application/json">{"kind":"bars","labels":["\u003c/script\u003e"],"series":[{"label":"s","values":[null]}]}</script>`,
		`role="img" aria-label="L"`, AssetURL("uplot.min.js")} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q:\n%s", want, s)
		}
	}
}

func TestAssets(t *testing.T) {
	app := fiber.New()
	api.Mount(app, []api.Operation{AssetsOperation()}, time.Now, nil)
	get := func(url, enc string) (*httptest.ResponseRecorder, []byte) {
		req := httptest.NewRequest("GET", url, nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		rec := httptest.NewRecorder()
		rec.Code = resp.StatusCode
		for k, v := range resp.Header {
			rec.Header()[k] = v
		}
		return rec, b
	}
	for _, name := range AssetNames() {
		u := AssetURL(name)
		rec, b := get(u, "")
		if rec.Code != 200 || !bytes.Equal(b, assets[name].body) || rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("%s: %d %q", u, rec.Code, rec.Header())
		}
		rec, b = get(u, "gzip, deflate, br")
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s gzip: %v %v", u, err, rec.Header())
		}
		plain, _ := io.ReadAll(zr)
		if !bytes.Equal(plain, assets[name].body) {
			t.Fatalf("%s: gzip body differs", u)
		}
	}
	if rec, _ := get("/assets/site.css?v=old", ""); rec.Header().Get("Cache-Control") != "public, max-age=300" {
		t.Errorf("an old version is cached for a year: %v", rec.Header())
	}
	if rec, b := get("/assets/secret.txt", ""); rec.Code != 404 || !strings.Contains(string(b), "site.css") {
		t.Errorf("unknown asset: %d %s", rec.Code, b)
	}
	if ct := assets["uplot.min.js"].contentType; ct != "text/javascript; charset=utf-8" {
		t.Errorf("uplot content type %q", ct)
	}
}
