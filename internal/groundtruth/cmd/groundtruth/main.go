// Command groundtruth measures the operators' event detectors against the
// simulator's labelled events and prints the table of docs/signals.md:
//
//	go run ./internal/groundtruth/cmd/groundtruth -seed 7 -hours 10
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/marketintel/mi/internal/groundtruth"
)

func main() {
	seed := flag.Int64("seed", 7, "simulator seed")
	start := flag.String("start", "2026-03-02T00:00:00Z", "simulation start (RFC 3339)")
	hours := flag.Float64("hours", 10, "simulated hours")
	symbols := flag.String("symbols", "", "comma-separated symbols (default: the whole universe)")
	rate := flag.Float64("rate", 1, "simulator rate scale")
	events := flag.Float64("events", 12, "events per symbol and simulated day")
	flag.Parse()
	t0, err := time.Parse(time.RFC3339, *start)
	if err != nil {
		fmt.Fprintln(os.Stderr, "groundtruth: bad -start:", err)
		os.Exit(2)
	}
	cfg := groundtruth.Config{
		Seed: *seed, Start: t0, Duration: time.Duration(*hours * float64(time.Hour)),
		RateScale: *rate, EventsPerSymbolPerDay: *events,
	}
	if *symbols != "" {
		cfg.Symbols = strings.Split(*symbols, ",")
	}
	began := time.Now()
	rep, err := groundtruth.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "groundtruth:", err)
		os.Exit(1)
	}
	fmt.Print(rep.Markdown())
	fmt.Fprintf(os.Stderr, "measured in %s\n", time.Since(began).Round(time.Millisecond))
}
