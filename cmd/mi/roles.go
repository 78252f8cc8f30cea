package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/probe"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// roleCommands are the commands that run one role as its own process
// against a Kafka cluster (DESIGN.md §1, docs/deploy.md), and the pipeline
// roles each runs.
var roleCommands = map[string][]string{
	"ingest":  {"ingest"},          // the sources: --source, or the live sources of --sources-config
	"process": {"process"},         // the operators, in consumer group mi-operators
	"sink":    {"parquet", "news"}, // the day files under --data-dir (a shared volume): Parquet sink, rates files, news stage
	"alerts":  {"alerts"},          // the alert outbox sink and the webhook dispatcher
	"serve":   {"views"},           // the query API over the views, the ledger and the day files
}

// ops is the operations port of one process: liveness, readiness by the
// consumption of its roles, and metrics (package probe).
type ops struct {
	addr     string
	readyLag int64
	roles    []string
	stats    *pipeline.Stats
	proc     *pipeline.ProcessStats
	views    <-chan struct{}
	news     bool // the news stage is configured
	log      *slog.Logger
	srv      *http.Server
	lag      *probe.Lag
}

func newOps(addr string, readyLag int64, roles []string, stats *pipeline.Stats, proc *pipeline.ProcessStats, views <-chan struct{}, news bool, log *slog.Logger) *ops {
	return &ops{addr: addr, readyLag: readyLag, roles: roles, stats: stats, proc: proc, views: views, news: news, log: log}
}

// start serves the port once the brokers are known; a listener that fails
// stops the process through errc.
func (o *ops) start(ctx context.Context, brokers []string, errc chan<- error) {
	if o.addr == "" {
		return
	}
	has := func(r string) bool { return o.roles == nil || slices.Contains(o.roles, r) }
	p := probe.New()
	lag, err := probe.NewLag(brokers)
	if err != nil {
		errc <- err
		return
	}
	o.lag = lag
	groups := map[string][]string{}
	if has("process") {
		groups[pipeline.ProcessGroup] = []string{schemas.TopicTrades}
		p.Ready("operators", lag.CaughtUp(pipeline.ProcessGroup, o.readyLag, schemas.TopicTrades))
		proc := o.proc
		p.Registry().MustRegister(probe.Counters("mi_operator_events_total", "Operator loop counters by kind.", "kind", func() map[string]uint64 {
			return map[string]uint64{"trades": proc.Trades.Load(), "gaps": proc.Gaps.Load(), "candles": proc.Candles.Load(),
				"documents": proc.Documents.Load(), "signal_changes": proc.SignalChanges.Load(), "rejected": proc.Rejected.Load(),
				"transactions": proc.Transactions.Load(), "aborts": proc.Aborts.Load(), "restores": proc.Restores.Load(),
				"redelivered": proc.Redelivered.Load()}
		}))
	}
	if has("parquet") {
		groups[pipeline.ParquetGroup] = pipeline.ParquetTopics
		p.Ready("parquet", lag.CaughtUp(pipeline.ParquetGroup, o.readyLag, pipeline.ParquetTopics...))
	}
	if has("news") && o.news {
		groups[pipeline.NewsGroup] = []string{sidetopic.News.Name}
		p.Ready("news", lag.CaughtUp(pipeline.NewsGroup, o.readyLag, sidetopic.News.Name))
	}
	if has("alerts") {
		groups[pipeline.OutboxGroup] = []string{schemas.TopicEvents}
		p.Ready("alerts", lag.CaughtUp(pipeline.OutboxGroup, o.readyLag, schemas.TopicEvents))
	}
	if has("views") && o.views != nil {
		p.Ready("views", probe.Closed(o.views, "views are being rebuilt from their topics"))
	}
	if has("ingest") {
		stats := o.stats
		p.Ready("sources", func(context.Context) error {
			src, _ := stats.Snapshot()
			for _, s := range src {
				if s.State == "failed" {
					return fmt.Errorf("source %s failed: %s", s.Name, s.Error)
				}
			}
			return nil
		})
		p.Registry().MustRegister(probe.Counters("mi_source_trades_total", "Trades a source ingested.", "source", func() map[string]uint64 {
			src, _ := stats.Snapshot()
			out := make(map[string]uint64, len(src))
			for _, s := range src {
				out[s.Name] = s.Trades
			}
			return out
		}))
	}
	p.Registry().MustRegister(lag.Collector(groups))
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		errc <- fmt.Errorf("cannot listen on --ops-addr %s: %w", o.addr, err)
		return
	}
	o.srv = &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 5 * time.Second}
	o.log.Info("operations port listening (/healthz, /readyz, /metrics)", "addr", ln.Addr().String(), "roles", o.roles)
	go func() {
		if err := o.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("operations port: %w", err)
		}
	}()
}

func (o *ops) shutdown(ctx context.Context) {
	if o.srv != nil {
		_ = o.srv.Shutdown(ctx)
	}
	if o.lag != nil {
		o.lag.Close()
	}
}
