// Package demopublishers stands in on this machine for every publisher the
// domain sources read, for the offline demo (`mi run --demo-publishers
// DIR`, docs/demo.md): one internal/pubreplay server on a loopback port
// serving the real captures of DIR (the shared fixtures) at each
// publisher's own paths — the news feeds and SEC EDGAR (newsreplay,
// edgarreplay), Treasury, FRED, the New York Fed and Fiscal Data
// (ratesreplay), Binance, Bybit and Hyperliquid (perpsreplay) — and a
// simulated Polygon whose Aave v3 Pool holds the recorded reserve
// (ratesreplay.StartChain); and the sources configuration that points the
// live clients at them. The sources read the captures through the same
// clients, parsers, topics and views as the publishers, and nothing of
// these domains reaches a public endpoint.
//
// The captures are old (2022 to 2026). Every answer built from them says
// so: each figure carries its publisher's date and the time it was read,
// the answers' staleness rules apply (a curve's date, a venue row's age, a
// block's time), and no date is rewritten.
package demopublishers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/internal/ratesreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgarreplay"
	"github.com/marketintel/mi/pipeline/sources/perps/perpsreplay"
)

// Publishers are the running stand-ins.
type Publishers struct {
	// URL is the replay server's base URL ("http://127.0.0.1:PORT").
	URL string
	// ChainURL is the simulated Polygon's JSON-RPC endpoint.
	ChainURL string
	// Config is the sources configuration reading them.
	Config sources.Config
	// Server is the replay server (its request counts and misses).
	Server *pubreplay.Server

	ln    *pubreplay.Listener
	chain *chaintest.Chain
}

// Routes returns every domain's routes over fixturesDir.
func Routes(fixturesDir string) ([]pubreplay.Route, error) {
	perps, err := perpsreplay.Routes(fixturesDir)
	if err != nil {
		return nil, err
	}
	return slices.Concat(newsreplay.Routes(fixturesDir), edgarreplay.Routes(fixturesDir), ratesreplay.Routes(fixturesDir), perps), nil
}

// Start serves the captures of fixturesDir on a free loopback port and
// starts the simulated chain. It fails when a capture cannot be read.
func Start(fixturesDir string) (*Publishers, error) {
	if st, err := os.Stat(filepath.Join(fixturesDir, "SOURCES.md")); err != nil || st.IsDir() {
		return nil, fmt.Errorf("cannot use %s as the demo's publishers: it is not the shared fixtures directory (no SOURCES.md)", fixturesDir)
	}
	routes, err := Routes(fixturesDir)
	if err != nil {
		return nil, err
	}
	srv, err := pubreplay.New(routes)
	if err != nil {
		return nil, fmt.Errorf("cannot serve the demo's publishers: %w", err)
	}
	ln, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ch, err := ratesreplay.StartChain(fixturesDir)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	p := &Publishers{URL: ln.URL, ChainURL: ch.URL, Server: srv, ln: ln, chain: ch}
	if p.Config, err = Config(ln.URL, ch.URL); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Config returns the sources configuration reading the captures from a
// replay server at base and Polygon from chainURL: the news feeds and
// EDGAR (the news source's filings and, in the edgar section, the SEC
// routes' client), the rates sources and the positioning pollers, with the http
// section of newsreplay (a contact, as EDGAR requires; no rate limit on
// the local server).
func Config(base, chainURL string) (sources.Config, error) {
	news, err := json.Marshal(newsreplay.Config(base))
	if err != nil {
		return sources.Config{}, fmt.Errorf("BUG: cannot encode the news entry: %w", err)
	}
	entries := []json.RawMessage{news}
	for _, e := range slices.Concat(ratesreplay.Entries(base), perpsreplay.Entries(base)) {
		b, err := json.Marshal(e)
		if err != nil {
			return sources.Config{}, fmt.Errorf("BUG: cannot encode a demo entry: %w", err)
		}
		entries = append(entries, b)
	}
	unlimited := &sources.Limit{Rate: 1000, Burst: 1000}
	doc := struct {
		HTTP    sources.HTTPConfig    `json:"http"`
		Chains  []sources.ChainConfig `json:"chains"`
		Sources []json.RawMessage     `json:"sources"`
		// EDGAR is the edgar section: the SEC routes' client
		// (fundamentals, insiders) reads the same replay server as the
		// news source's filings.
		EDGAR edgar.Endpoints `json:"edgar"`
	}{newsreplay.HTTP(), []sources.ChainConfig{{Chain: ratesreplay.Chain, RPC: chainURL, Limit: unlimited}}, entries,
		edgar.Endpoints{WWW: base, Data: base}}
	b, err := json.Marshal(doc)
	if err != nil {
		return sources.Config{}, fmt.Errorf("BUG: cannot encode the demo configuration: %w", err)
	}
	return sources.ParseConfig(b)
}

// Close stops the replay server and the chain.
func (p *Publishers) Close() error {
	var errs []error
	if p.ln != nil {
		errs = append(errs, p.ln.Close())
	}
	if p.chain != nil {
		p.chain.Close()
	}
	return errors.Join(errs...)
}
