package query

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
)

// GET /metrics serves Prometheus metrics in the text exposition format
// (free, like /status): per source (trades, rejected, reconnects, gaps, gap
// seconds, freshness, lag, state), dead letters by reason, the operator
// loop's counters, the views sink's documents, and HTTP requests by route
// and status with their latency. Source, operator and sink figures are read
// from the same stats as /status at scrape time; HTTP figures are counted by
// a middleware of the Server.
const metricsPath = "/metrics"

// httpMetrics are one Server's HTTP request metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	reg      *prometheus.Registry
}

var (
	metricsMu      sync.Mutex
	serverMetrics  = map[*Server]*httpMetrics{}
	metricsContent = string(expfmt.NewFormat(expfmt.TypeTextPlain))
)

// metricsMiddleware counts the server's HTTP requests by route and status,
// with their latency.
func (s *Server) metricsMiddleware() fiber.Handler {
	{
		m := &httpMetrics{
			requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mi_http_requests_total",
				Help: "HTTP requests by method, route (Fiber path) and status."}, []string{"method", "route", "status"}),
			latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mi_http_request_duration_seconds",
				Help: "HTTP request latency by route.", Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}},
				[]string{"method", "route"}),
			reg: prometheus.NewRegistry(),
		}
		m.reg.MustRegister(m.requests, m.latency, &pipelineCollector{s: s})
		metricsMu.Lock()
		serverMetrics[s] = m
		metricsMu.Unlock()
		return func(c fiber.Ctx) error {
			start := time.Now()
			err := c.Next()
			status := c.Response().StatusCode()
			if err != nil {
				if fe, ok := err.(*fiber.Error); ok {
					status = fe.Code
				} else {
					status = fiber.StatusInternalServerError
				}
			}
			route := "unmatched"
			if r := c.Route(); r != nil && r.Path != "/" && r.Path != "" {
				route = r.Path // the middleware's own path "/" when no route matched
			}
			m.requests.WithLabelValues(c.Method(), route, strconv.Itoa(status)).Inc()
			m.latency.WithLabelValues(c.Method(), route).Observe(time.Since(start).Seconds())
			return err
		}
	}
}

// metricsOperation declares GET /metrics.
func (s *Server) metricsOperation() api.Operation {
	{
		return api.Operation{
			Method: fiber.MethodGet, Path: metricsPath, ID: "getMetrics", Free: true,
			Summary: "Prometheus metrics: sources, operators, sinks, HTTP.",
			Responses: []api.Response{{Status: fiber.StatusOK, Desc: "Prometheus text exposition format (version 0.0.4).",
				Content: []api.Content{{Type: "text/plain", Schema: schema.String}}}},
			NoTool:  "a scrape target for Prometheus",
			Handler: s.handleMetrics,
		}
	}
}

func (s *Server) handleMetrics(c fiber.Ctx) error {
	metricsMu.Lock()
	m := serverMetrics[s]
	metricsMu.Unlock()
	if m == nil {
		panic("BUG: server without metrics middleware")
	}
	mfs, err := m.reg.Gather()
	if err != nil {
		return fmt.Errorf("cannot gather metrics: %w", err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return fmt.Errorf("cannot encode metrics: %w", err)
		}
	}
	c.Status(fiber.StatusOK)
	c.Set(fiber.HeaderContentType, metricsContent)
	c.Response().SetBody(b.Bytes())
	return nil
}

// pipelineCollector reads the pipeline's stats and the views at scrape time.
type pipelineCollector struct{ s *Server }

var (
	descSrcTrades     = prometheus.NewDesc("mi_source_trades_total", "Trades a source ingested.", []string{"source"}, nil)
	descSrcRejected   = prometheus.NewDesc("mi_source_rejected_total", "Inputs a source dead-lettered.", []string{"source"}, nil)
	descSrcReconnects = prometheus.NewDesc("mi_source_reconnects_total", "Reconnection attempts of a live source.", []string{"source"}, nil)
	descSrcGaps       = prometheus.NewDesc("mi_source_gaps_total", "Stretches a source could not deliver (disconnects, missed trade ids).", []string{"source"}, nil)
	descSrcGapSeconds = prometheus.NewDesc("mi_source_gap_seconds_total", "Summed length of a source's gaps.", []string{"source"}, nil)
	descSrcFreshness  = prometheus.NewDesc("mi_source_freshness_seconds", "Time since a source's last ingested trade.", []string{"source"}, nil)
	descSrcLag        = prometheus.NewDesc("mi_source_lag_seconds", "Ingest time minus event time of a source's last trade.", []string{"source"}, nil)
	descSrcUp         = prometheus.NewDesc("mi_source_up", "1 when the source is in the given state.", []string{"source", "state"}, nil)
	descDLQ           = prometheus.NewDesc("mi_dead_letters_total", "Rejected inputs by reason phrase.", []string{"reason"}, nil)
	descOps           = prometheus.NewDesc("mi_operator_events_total", "Operator loop counters by kind.", []string{"kind"}, nil)
	descViewsDocs     = prometheus.NewDesc("mi_sink_views_documents", "Documents the views sink holds.", nil, nil)
	descViewsWindow   = prometheus.NewDesc("mi_sink_views_window_documents", "Documents of the views sink per window.", []string{"window"}, nil)
)

func (p *pipelineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSrcTrades, descSrcRejected, descSrcReconnects, descSrcGaps, descSrcGapSeconds,
		descSrcFreshness, descSrcLag, descSrcUp, descDLQ, descOps, descViewsDocs, descViewsWindow} {
		ch <- d
	}
}

func (p *pipelineCollector) Collect(ch chan<- prometheus.Metric) {
	d := p.s.d
	now := d.Now()
	gauge, counter := prometheus.GaugeValue, prometheus.CounterValue
	if d.Stats != nil {
		srcs, dlq := d.Stats.Snapshot()
		for _, st := range srcs {
			n := st.Name
			ch <- prometheus.MustNewConstMetric(descSrcTrades, counter, float64(st.Trades), n)
			ch <- prometheus.MustNewConstMetric(descSrcRejected, counter, float64(st.Rejected), n)
			ch <- prometheus.MustNewConstMetric(descSrcReconnects, counter, float64(st.Reconnects), n)
			ch <- prometheus.MustNewConstMetric(descSrcGaps, counter, float64(st.Gaps), n)
			ch <- prometheus.MustNewConstMetric(descSrcGapSeconds, counter, float64(st.GapTotalNs)/1e9, n)
			if st.LastIngestNs != 0 {
				ch <- prometheus.MustNewConstMetric(descSrcFreshness, gauge, max(now.Sub(time.Unix(0, st.LastIngestNs)).Seconds(), 0), n)
				ch <- prometheus.MustNewConstMetric(descSrcLag, gauge, float64(st.LagNs)/1e9, n)
			}
			ch <- prometheus.MustNewConstMetric(descSrcUp, gauge, 1, n, st.State)
		}
		for reason, v := range dlq {
			ch <- prometheus.MustNewConstMetric(descDLQ, counter, float64(v), reason)
		}
		if oc, ok := d.Stats.Operators(); ok {
			for _, kv := range []struct {
				k string
				v uint64
			}{{"trades", oc.Trades}, {"gaps", oc.Gaps}, {"candles", oc.Candles}, {"documents", oc.Documents}, {"signal_changes", oc.SignalChanges},
				{"rejected", oc.Rejected}, {"transactions", oc.Transactions}, {"aborts", oc.Aborts}, {"restores", oc.Restores}} {
				ch <- prometheus.MustNewConstMetric(descOps, counter, float64(kv.v), kv.k)
			}
		}
	}
	ch <- prometheus.MustNewConstMetric(descViewsDocs, gauge, float64(d.Views.Len()))
	for _, w := range schemas.Windows {
		ch <- prometheus.MustNewConstMetric(descViewsWindow, gauge, float64(len(d.Views.List(w))), w)
	}
}
