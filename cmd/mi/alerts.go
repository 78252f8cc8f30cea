package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/sinks/alerts"
)

// alertKeyEnv holds the 32-byte server key (64 hex digits) that encrypts
// alert subscription secrets; without it the key is kept in
// <data-dir>/alerts.key, created on first use.
const alertKeyEnv = "MI_ALERTS_KEY"

// alertServerKey returns the server key of the alert outbox.
func alertServerKey(dataDir string) ([]byte, error) {
	if v := os.Getenv(alertKeyEnv); v != "" {
		k, err := hex.DecodeString(strings.TrimSpace(v))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("cannot use %s: want 64 hex digits (32 bytes)", alertKeyEnv)
		}
		return k, nil
	}
	path := filepath.Join(dataDir, "alerts.key")
	b, err := os.ReadFile(path)
	if err == nil {
		k, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("cannot use the alert server key %s: want 64 hex digits", path)
		}
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot read the alert server key: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("cannot create the alert server key: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create data directory: %w", err)
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("cannot write the alert server key: %w", err)
	}
	return k, nil
}

// devWebhookFlags are mi run's development flags for alert receivers on
// this machine.
type devWebhookFlags struct {
	loopback bool
	caFile   string
}

func addDevWebhookFlags(fs *flag.FlagSet) *devWebhookFlags {
	d := &devWebhookFlags{}
	fs.BoolVar(&d.loopback, "dev-allow-loopback-webhooks", false, "DEVELOPMENT ONLY: admit alert webhook URLs on this machine (127.0.0.0/8, ::1, localhost) so a local HTTPS receiver gets deliveries (docs/alerts.md, \"Receiving deliveries locally\"); refused together with --pay-to-evm or --pay-to-solana")
	fs.StringVar(&d.caFile, "dev-webhook-ca", "", "DEVELOPMENT ONLY, with --dev-allow-loopback-webhooks: PEM file of certificates trusted for webhook TLS besides the system roots (a local receiver's self-signed certificate)")
	return d
}

// config returns the dispatcher's target policy and TLS configuration. The
// loopback admission is refused when the service takes payments (a payee
// address is set), and warned about in the log otherwise.
func (d *devWebhookFlags) config(pay *paymentFlags, log *slog.Logger) (alerts.Safety, *tls.Config, error) {
	if !d.loopback {
		if d.caFile != "" {
			return alerts.Safety{}, nil, errors.New("cannot use --dev-webhook-ca without --dev-allow-loopback-webhooks: it only serves local development receivers")
		}
		return alerts.Safety{}, nil, nil
	}
	if pay.payToEVM != "" || pay.payToSolana != "" {
		return alerts.Safety{}, nil, errors.New("cannot use --dev-allow-loopback-webhooks with --pay-to-evm or --pay-to-solana: a service that takes payments must not deliver alerts to its own machine; drop the payee address for local development")
	}
	var tc *tls.Config
	if d.caFile != "" {
		b, err := os.ReadFile(d.caFile)
		if err != nil {
			return alerts.Safety{}, nil, fmt.Errorf("cannot read --dev-webhook-ca: %w", err)
		}
		roots, err := x509.SystemCertPool()
		if err != nil || roots == nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(b) {
			return alerts.Safety{}, nil, fmt.Errorf("cannot use --dev-webhook-ca %s: no PEM certificate in it", d.caFile)
		}
		tc = &tls.Config{RootCAs: roots}
	}
	log.Warn("DEVELOPMENT MODE: alert webhooks may target this machine (loopback); never run a public service like this",
		"flag", "--dev-allow-loopback-webhooks", "extra_ca", d.caFile)
	return alerts.Safety{AllowLoopback: true}, tc, nil
}

// openAlerts opens the alert outbox on db (dialect "sqlite" or "postgres",
// normally the ledger's database) and returns its dispatcher, which
// delivers under safety and tc (nil: the system roots). With a nil db it
// opens the SQLite ledger file <data-dir>/ledger.db itself, with the
// pragmas the ledger uses.
func openAlerts(ctx context.Context, db *sql.DB, dialect, dataDir string, safety alerts.Safety, tc *tls.Config, log *slog.Logger) (*alerts.Dispatcher, error) {
	if db == nil {
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create data directory: %w", err)
		}
		dsn := "file:" + filepath.Join(dataDir, "ledger.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
			"&_pragma=synchronous(NORMAL)&_txlock=immediate"
		var err error
		if db, err = sql.Open("sqlite", dsn); err != nil {
			return nil, fmt.Errorf("cannot open the alert outbox: %w", err)
		}
		dialect = alerts.DialectSQLite
	}
	key, err := alertServerKey(dataDir)
	if err != nil {
		return nil, err
	}
	st, err := alerts.Open(ctx, db, dialect, alerts.Config{Key: key})
	if err != nil {
		return nil, err
	}
	return alerts.NewDispatcher(st, alerts.DispatcherConfig{Logger: log, Safety: safety, TLS: tc}), nil
}

// startAlertStages runs the outbox sink and the dispatcher until ctx ends;
// a stage that fails is logged. The events themselves come from the
// operators (the process role), with the documents they are detected in.
func startAlertStages(ctx context.Context, brokers []string, d *alerts.Dispatcher, log *slog.Logger) {
	stage := func(name string, f func() error) {
		go func() {
			if err := f(); err != nil && ctx.Err() == nil {
				log.Error("alert stage stopped", "stage", name, "err", err)
			}
		}()
	}
	stage("outbox", func() error { return pipeline.SinkEvents(ctx, brokers, d.Store(), log) })
	stage("dispatch", func() error { return d.Run(ctx) })
}
