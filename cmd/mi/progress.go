package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// progress shows long CLI work: a redrawn bar on a terminal, plain log lines
// every five seconds otherwise. The rate shown is the current one: records
// per second since the previous line, not since the start (a live
// simulation first catches up an hour at full speed, then trades in real
// time; an average would stay high for hours).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	log     *slog.Logger
	tty     bool
	now     func() time.Time
	total   int64 // 0 = unknown
	counts  map[string]int64
	last    time.Time // when the last line was shown (or the start)
	lastSum int64     // the total then
	drawn   bool
}

func newProgress(w *os.File, log *slog.Logger) *progress {
	return newProgressTo(w, log, term.IsTerminal(int(w.Fd())), time.Now)
}

func newProgressTo(w io.Writer, log *slog.Logger, tty bool, now func() time.Time) *progress {
	return &progress{w: w, log: log, tty: tty, now: now, counts: map[string]int64{}, last: now()}
}

// update records that source has committed n records in all.
func (p *progress) update(source string, n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[source] = n
	now := p.now()
	every := 5 * time.Second
	if p.tty {
		every = time.Second // redrawn at most once a second: a steady rate to read
	}
	if now.Sub(p.last) < every {
		return
	}
	var sum int64
	for _, c := range p.counts {
		sum += c
	}
	rate := float64(sum-p.lastSum) / now.Sub(p.last).Seconds()
	p.last, p.lastSum = now, sum
	if !p.tty {
		p.log.Info("progress", "records", sum, "rate_per_s", int64(rate))
		return
	}
	line := fmt.Sprintf("%d records  %.0f/s", sum, rate)
	if p.total > 0 {
		const width = 30
		f := float64(sum) / float64(p.total)
		if f > 1 {
			f = 1
		}
		fill := int(f * width)
		line = fmt.Sprintf("[%s%s] %3.0f%%  ", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*f) + line
	}
	fmt.Fprintf(p.w, "\r%s\033[K", line)
	p.drawn = true
}

// done ends the bar's line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
