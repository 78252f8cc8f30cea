package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/marketintel/mi/internal/datadir"
	"github.com/marketintel/mi/query/paywall/ledger"
)

const creditsUsage = `usage:
  mi credits grant --amount USD [--data-dir DIR | --database-url URL]
      create a new API key holding USD of credit; the last line printed is the key
  mi credits balance KEY [--data-dir DIR | --database-url URL]
      print the balance of an API key`

// openLedger opens the ledger of a process: databaseURL when set (the
// --database-url flag, PostgreSQL for several replicas), else the SQLite file
// in dataDir.
func openLedger(ctx context.Context, dataDir, databaseURL string) (*ledger.SQL, error) {
	if databaseURL == "" {
		if err := datadir.Check(dataDir); err != nil {
			return nil, err
		}
		l, err := ledger.Open(ctx, ledger.DefaultURL(dataDir))
		return l, datadir.Diagnose(dataDir, err)
	}
	return ledger.Open(ctx, databaseURL)
}

// cmdCredits runs the operator's credit commands (docs/credits.md).
func cmdCredits(ctx context.Context, args []string) error {
	return runCredits(ctx, args, os.Stdout)
}

func runCredits(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(creditsUsage)
	}
	fs := flag.NewFlagSet("mi credits "+args[0], flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./data", "data directory holding the SQLite ledger ("+ledger.DefaultFile+")")
	dbURL := fs.String("database-url", "", "ledger database URL (postgres://… or sqlite:PATH); overrides --data-dir")
	open := func() (*ledger.SQL, error) { return openLedger(ctx, *dataDir, *dbURL) }
	switch args[0] {
	case "grant":
		amount := fs.String("amount", "", "credit in USD, a positive decimal with at most 6 decimals, e.g. 5 or 0.25")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return fmt.Errorf("unexpected arguments %q\n%s", fs.Args(), creditsUsage)
		}
		if *amount == "" {
			return errors.New("--amount is required\n" + creditsUsage)
		}
		micro, err := ledger.ParseUSD(*amount)
		if err != nil {
			return fmt.Errorf("--amount: %w", err)
		}
		l, err := open()
		if err != nil {
			return err
		}
		defer l.Close()
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("cannot make a request id: %w", err)
		}
		key, err := l.CreateKey(ctx, micro, "operator grant (mi credits grant)", "cli-grant-"+hex.EncodeToString(b[:]))
		if err != nil {
			return fmt.Errorf("cannot grant credit: %w", err)
		}
		fmt.Fprintf(out, "granted %s USD (%d micro-USD) on a new API key (%s ledger); it is shown once:\n",
			ledger.FormatUSD(micro), micro, l.Dialect())
		fmt.Fprintln(out, key)
		return nil
	case "balance":
		// The key may come before or after the flags.
		var key string
		rest := args[1:]
		if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
			key, rest = rest[0], rest[1:]
		}
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if key == "" && fs.NArg() == 1 {
			key = fs.Arg(0)
		} else if fs.NArg() != 0 || key == "" {
			return errors.New("exactly one KEY is required\n" + creditsUsage)
		}
		l, err := open()
		if err != nil {
			return err
		}
		defer l.Close()
		a, err := l.KeyAccount(ctx, key)
		if errors.Is(err, ledger.ErrUnknownKey) {
			return errors.New("unknown API key")
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "balance %s USD (%d micro-USD)\n", ledger.FormatUSD(a.BalanceMicroUSD), a.BalanceMicroUSD)
		for _, w := range a.Wallets {
			fmt.Fprintf(out, "wallet %s\n", w)
		}
		return nil
	default:
		return fmt.Errorf("unknown credits command %q\n%s", args[0], creditsUsage)
	}
}
