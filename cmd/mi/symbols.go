package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/pipeline/symbols"
)

// symbolRow is one line of mi symbols.
type symbolRow struct {
	Symbol  string   `json:"symbol"`
	Class   string   `json:"assetClass"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases"`
	// Venues are the data sources of the default configuration
	// (venue:venueSymbol for exchanges, chain:ticker for tokens), plus
	// "sim" when the simulator trades the symbol.
	Venues []string `json:"venues"`
}

// cmdSymbols is "mi symbols": the covered symbols with their aliases,
// asset class and venues, or the ones the given names resolve to.
func cmdSymbols(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mi symbols", flag.ContinueOnError)
	fs.SetOutput(out)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	class := fs.String("class", "", "only this asset class: crypto, us_equity or perp_only")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: mi symbols [--json] [--class CLASS] [NAME ...]

Lists every covered symbol: its canonical name (crypto BASEUSD, US stocks and
ETFs the bare ticker), the aliases accepted for it (case-insensitive), its asset
class and its venues. With names, resolves each (any case, alias or venue
spelling: tsla, RNDRUSD, btc-usdt) and lists what they name.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch *class {
	case "", string(symbols.Crypto), string(symbols.USEquity), string(symbols.PerpOnly):
	default:
		return fmt.Errorf("cannot use --class %q: accepted values are crypto, us_equity, perp_only", *class)
	}
	simulated := sim.DefaultSymbols()
	var rows []symbolRow
	byName := map[string]int{}
	for _, e := range symbols.Coverage() {
		a, _ := symbols.LookupAsset(e.Symbol)
		r := symbolRow{Symbol: e.Symbol, Class: string(e.Class), Name: e.Name, Aliases: a.Aliases, Venues: []string{}}
		if r.Aliases == nil {
			r.Aliases = []string{}
		}
		for _, s := range e.Sources {
			v := s.Chain + ":" + s.Ticker
			if s.Kind == "exchange" {
				v = s.Venue + ":" + s.VenueSymbol
			}
			if !slices.Contains(r.Venues, v) {
				r.Venues = append(r.Venues, v)
			}
		}
		if slices.Contains(simulated, e.Symbol) {
			r.Venues = append(r.Venues, "sim")
		}
		byName[e.Symbol] = len(rows)
		rows = append(rows, r)
	}
	if fs.NArg() > 0 {
		var picked []symbolRow
		var bad []string
		for _, in := range fs.Args() {
			a, err := symbols.Resolve(in)
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			if r := rows[byName[a.Symbol]]; !slices.ContainsFunc(picked, func(p symbolRow) bool { return p.Symbol == r.Symbol }) {
				picked = append(picked, r)
			}
		}
		if len(bad) > 0 {
			return errors.New(strings.Join(bad, "; "))
		}
		rows = picked
	}
	if *class != "" {
		rows = slices.DeleteFunc(rows, func(r symbolRow) bool { return r.Class != *class })
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SYMBOL\tCLASS\tALIASES\tVENUES\tNAME")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Symbol, r.Class, strings.Join(r.Aliases, ","), strings.Join(r.Venues, ","), r.Name)
	}
	return tw.Flush()
}
