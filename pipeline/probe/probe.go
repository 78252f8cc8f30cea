// Package probe serves what an orchestrator asks of one role process (mi
// ingest, process, sink, alerts, serve): liveness, readiness by caught-up
// consumption, and the role's metrics, on an operations port apart from the
// query API.
//
//	GET /healthz  200 {"status":"ok"} while the process answers (liveness)
//	GET /readyz   200 {"status":"ready"} when every readiness check passes,
//	              503 {"status":"not ready","checks":{name: reason}} otherwise
//	GET /metrics  Prometheus text format: mi_ready, mi_consumer_lag_records
//	              and the role's own counters
//
// Readiness is evaluated at most once a second whatever the probe rate, so a
// check may ask the brokers (a consumer group's lag) without loading them.
package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Check reports why its part of the process is not ready, or nil.
type Check func(ctx context.Context) error

// Server holds the readiness checks and metrics of one process.
type Server struct {
	reg *prometheus.Registry

	mu      sync.Mutex
	names   []string
	checks  map[string]Check
	at      time.Time
	reasons map[string]string
	ready   bool
}

// New returns a Server with no checks (ready) and the Go runtime and
// process metrics registered.
func New() *Server {
	s := &Server{reg: prometheus.NewRegistry(), checks: map[string]Check{}}
	s.reg.MustRegister(prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mi_ready", Help: "1 when every readiness check of the process passes."},
		func() float64 {
			if ok, _ := s.evaluate(context.Background()); ok {
				return 1
			}
			return 0
		}))
	return s
}

// Registry is where a role registers its metrics.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Ready adds a readiness check under name (shown in /readyz when failing).
func (s *Server) Ready(name string, c Check) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.checks[name]; dup {
		panic("BUG: readiness check " + name + " added twice")
	}
	s.names = append(s.names, name)
	s.checks[name] = c
	s.at = time.Time{}
}

// evaluate runs the checks, or returns their result of the last second.
func (s *Server) evaluate(ctx context.Context) (bool, map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.at.IsZero() && time.Since(s.at) < time.Second {
		return s.ready, s.reasons
	}
	reasons := map[string]string{}
	for _, n := range s.names {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := s.checks[n](cctx); err != nil {
			reasons[n] = err.Error()
		}
		cancel()
	}
	s.at, s.reasons, s.ready = time.Now(), reasons, len(reasons) == 0
	return s.ready, reasons
}

// Handler serves /healthz, /readyz and /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ok, reasons := s.evaluate(r.Context())
		if ok {
			writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
			return
		}
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "checks": reasons})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Closed is a check that passes once ch is closed (e.g. views rebuilt).
func Closed(ch <-chan struct{}, waiting string) Check {
	return func(context.Context) error {
		select {
		case <-ch:
			return nil
		default:
			return errors.New(waiting)
		}
	}
}

// Lag measures how far consumer groups are behind, from offsets alone:
// the end offsets of the topics minus the group's committed offsets.
// Transaction markers occupy offsets too, so a caught-up group of a
// transactional topic shows a small remainder (one marker per transaction
// not yet followed by a commit); readiness compares the lag with a bound.
type Lag struct {
	cl  *kgo.Client
	adm *kadm.Client
}

// NewLag returns a Lag reading the brokers.
func NewLag(brokers []string) (*Lag, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	return &Lag{cl: cl, adm: kadm.NewClient(cl)}, nil
}

// Close releases the client.
func (l *Lag) Close() { l.cl.Close() }

// Of returns the group's lag on each topic, in records.
func (l *Lag) Of(ctx context.Context, group string, topics ...string) (map[string]int64, error) {
	ends, err := l.adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the end offsets of %v: %w", topics, err)
	}
	got, err := l.adm.FetchOffsets(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("cannot fetch the offsets of group %s: %w", group, err)
	}
	out := map[string]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		at := int64(0)
		if c, ok := got.Lookup(o.Topic, o.Partition); ok && c.Err == nil && c.At > 0 {
			at = c.At
		}
		out[o.Topic] += max(0, o.Offset-at)
	})
	return out, nil
}

// CaughtUp is a check that passes while the group is at most max records
// behind on the topics, summed.
func (l *Lag) CaughtUp(group string, maxLag int64, topics ...string) Check {
	return func(ctx context.Context) error {
		lag, err := l.Of(ctx, group, topics...)
		if err != nil {
			return err
		}
		var sum int64
		for _, n := range lag {
			sum += n
		}
		if sum > maxLag {
			return fmt.Errorf("consumer group %s is %d records behind (ready at %d or fewer)", group, sum, maxLag)
		}
		return nil
	}
}

// Collector exports mi_consumer_lag_records{group,topic} of the groups, read
// at scrape time.
func (l *Lag) Collector(groups map[string][]string) prometheus.Collector {
	return &lagCollector{l: l, groups: groups}
}

var descLag = prometheus.NewDesc("mi_consumer_lag_records", "Records of a topic a consumer group has not committed (end offset minus committed offset; includes transaction markers).", []string{"group", "topic"}, nil)

type lagCollector struct {
	l      *Lag
	groups map[string][]string
}

func (c *lagCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descLag }

func (c *lagCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	groups := make([]string, 0, len(c.groups))
	for g := range c.groups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		lag, err := c.l.Of(ctx, g, c.groups[g]...)
		if err != nil {
			continue // a scrape without the figure; /readyz says why
		}
		for t, n := range lag {
			ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, float64(n), g, t)
		}
	}
}

// Counters exports a family of counters read at scrape time from fn, one
// series per key of its result under the label.
func Counters(name, help, label string, fn func() map[string]uint64) prometheus.Collector {
	return &counterFunc{desc: prometheus.NewDesc(name, help, []string{label}, nil), fn: fn}
}

type counterFunc struct {
	desc *prometheus.Desc
	fn   func() map[string]uint64
}

func (c *counterFunc) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *counterFunc) Collect(ch chan<- prometheus.Metric) {
	for k, v := range c.fn() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(v), k)
	}
}
