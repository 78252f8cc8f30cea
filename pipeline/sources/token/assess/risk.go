package assess

import (
	"fmt"
	"strings"
	"time"
)

// Risk verdicts and check results (spec §2.11).
const (
	LowRisk  = "LOW_RISK"
	Caution  = "CAUTION"
	HighRisk = "HIGH_RISK"

	Pass    = "PASS"
	Warn    = "WARN"
	Fail    = "FAIL"
	Unknown = "UNKNOWN"
	Info    = "INFO"
)

// Disclaimer is stated by every risk report.
const Disclaimer = "Automated checks, not an audit: the simulations and scans read the chain as it is now and can miss behaviour that depends on time, block, caller lists or code changes; a PASS is no guarantee."

// Tax thresholds (fractions): under TaxWarn PASS, under TaxFail WARN, else
// FAIL.
const (
	TaxWarn = 0.03
	TaxFail = 0.25
)

// Liquidity thresholds, USD.
const (
	LiquidityPass = 50_000.0
	LiquidityWarn = 10_000.0
)

// LPSafeShare: at or above this share of a v2 pair's LP tokens burned or
// locked, the liquidity cannot be pulled.
const LPSafeShare = 0.90

// Score thresholds: LOW_RISK needs LowRiskScore, under HighRiskScore is
// HIGH_RISK.
const (
	LowRiskScore  = 80
	HighRiskScore = 40
)

// Penalties subtract from 100 for each check's result; a check not listed
// costs nothing for that result.
var Penalties = map[string]map[string]int{
	"sell_simulation":      {Fail: 100, Unknown: 20},
	"buy_simulation":       {Fail: 40, Unknown: 10},
	"sell_tax":             {Warn: 15, Fail: 50},
	"buy_tax":              {Warn: 15, Fail: 40},
	"ownership":            {Warn: 5, Unknown: 5},
	"proxy":                {Warn: 25, Unknown: 5},
	"mint_function":        {Warn: 15},
	"blacklist_function":   {Warn: 20},
	"pause_function":       {Warn: 15},
	"fee_setter":           {Warn: 15},
	"limit_function":       {Warn: 10},
	"trading_switch":       {Warn: 10},
	"bytecode_scan":        {Unknown: 10},
	"liquidity":            {Warn: 10, Fail: 30, Unknown: 5},
	"lp_burned_or_locked":  {Warn: 5},
	"observed_buy_tax":     {Warn: 10, Fail: 30},
	"last_hour_flow":       {Warn: 5},
	"self_destruct_opcode": {Warn: 10},
}

// Critical checks: a FAIL of any makes the verdict HIGH_RISK whatever the
// score.
var Critical = []string{"sell_simulation", "sell_tax", "buy_simulation", "buy_tax"}

// Check is one check of the report.
type Check struct {
	Name   string `json:"name"`
	Result string `json:"result"`
	Detail string `json:"detail"`
	// Penalty is what the result took off the safety score.
	Penalty int `json:"penalty"`
}

// SimFacts are the outcome of the buy-and-sell simulation.
type SimFacts struct {
	// Ran is false when no simulation could run; Reason says why
	// (no pool, RPC failure, ...): both simulation checks are then
	// UNKNOWN. Failed marks a failure to read the chain (the report is
	// partial and not cached).
	Ran    bool
	Failed bool
	Reason string
	Pool   string
	Quote  string
	Buyer  string
	// BuyerSource says where the buyer came from ("recent buyer in tx
	// 0x…", or "no recent buyer: a fresh address").
	BuyerSource string
	QuoteIn     string
	// Buy: attempted when the quote's balance slot was found.
	BuyTried  bool
	BuyOK     bool
	BuyError  string
	BuyTax    float64
	BuyGas    uint64
	SellTried bool
	SellOK    bool
	SellError string
	SellTax   float64
	SellGas   uint64
	// SellOnly is true when the sell ran on an overridden token balance
	// because the buy could not run.
	SellOnly bool
}

// OwnerFacts are the owner reads.
type OwnerFacts struct {
	Read   bool // false: the read failed (Reason)
	Reason string
	// HasOwner is false when neither owner() nor getOwner() answers.
	HasOwner  bool
	Address   string
	Renounced bool
}

// ProxyFacts describe a proxy.
type ProxyFacts struct {
	Read   bool
	Reason string
	// Kind is "" (not a proxy), "eip1967", "eip1967-beacon" or "eip1167".
	Kind           string
	Implementation string
	Admin          string
}

// LiquidityFacts describe the token's pools.
type LiquidityFacts struct {
	Read   bool
	Reason string
	USD    float64
	Pools  int
	// LPShareKnown is true when the deepest pool is a v2 pair whose LP
	// token holders were read; LPBurnedShare is then the share held by
	// the zero and dead addresses and the listed lockers.
	LPShareKnown  bool
	LPBurnedShare float64
	LPPool        string
	LPNote        string
	// LPLockers is the number of LP-locker contracts counted (the venues
	// file's lockers of the chain; none by default): the WARN detail says
	// when the rest may sit in a locker the check does not know.
	LPLockers int
}

// ObservedTaxFacts are the taxes seen on recent real buys.
type ObservedTaxFacts struct {
	Read    bool
	Reason  string
	Samples int
	// Tax is the median of the samples.
	Tax float64
}

// Facts is everything the report is built from.
type Facts struct {
	Token, Chain, Name, Symbol string
	Decimals                   uint8
	Sim                        SimFacts
	Owner                      OwnerFacts
	Proxy                      ProxyFacts
	// CodeScanned is false when the code could not be read (Reason).
	CodeScanned bool
	CodeReason  string
	// Functions maps a function class (FunctionClasses) to the
	// signatures found in the code.
	Functions    map[string][]string
	SelfDestruct bool
	Liquidity    LiquidityFacts
	ObservedTax  ObservedTaxFacts
	Flow         *Flow
	FlowReason   string
	Timestamp    time.Time
	ReadAt       time.Time
	Block        uint64
}

// Report is the token risk answer.
type Report struct {
	Token       string  `json:"token"`
	Chain       string  `json:"chain"`
	Name        string  `json:"name"`
	Symbol      string  `json:"symbol"`
	Decimals    uint8   `json:"decimals"`
	Verdict     string  `json:"verdict"`
	SafetyScore int     `json:"safetyScore"`
	Checks      []Check `json:"checks"`
	// FailedChecks names the checks whose result is FAIL.
	FailedChecks []string           `json:"failedChecks"`
	Simulation   *SimulationSummary `json:"simulation"`
	Owner        string             `json:"owner"`
	Proxy        *ProxySummary      `json:"proxy"`
	Flow         *Flow              `json:"flow"`
	Block        uint64             `json:"block"`
	Timestamp    time.Time          `json:"timestamp"`
	ReadAt       time.Time          `json:"readAt"`
	Disclaimer   string             `json:"disclaimer"`
}

// SimulationSummary repeats the simulation's figures.
type SimulationSummary struct {
	Pool        string   `json:"pool"`
	Buyer       string   `json:"buyer"`
	BuyerSource string   `json:"buyerSource"`
	QuoteIn     string   `json:"quoteIn"`
	BuyTax      *float64 `json:"buyTax"`
	SellTax     *float64 `json:"sellTax"`
	BuyGas      uint64   `json:"buyGas"`
	SellGas     uint64   `json:"sellGas"`
}

// ProxySummary describes a proxy.
type ProxySummary struct {
	Kind           string `json:"kind"`
	Implementation string `json:"implementation"`
	Admin          string `json:"admin"`
}

// Assess builds the report of f: one check per rule, the safety score
// (100 minus the penalties, at least 0) and the verdict (HIGH_RISK when a
// critical check fails or the score is under HighRiskScore; LOW_RISK when
// the score is at least LowRiskScore, nothing failed and the sell
// simulation passed; else CAUTION).
func Assess(f Facts) *Report {
	r := &Report{Token: f.Token, Chain: f.Chain, Name: f.Name, Symbol: f.Symbol, Decimals: f.Decimals,
		Timestamp: f.Timestamp, ReadAt: f.ReadAt, Block: f.Block, Disclaimer: Disclaimer, Flow: f.Flow, FailedChecks: []string{}}
	add := func(name, result, detail string) {
		r.Checks = append(r.Checks, Check{Name: name, Result: result, Detail: detail, Penalty: Penalties[name][result]})
	}
	simChecks(f.Sim, add)
	if f.Sim.Ran {
		s := &SimulationSummary{Pool: f.Sim.Pool, Buyer: f.Sim.Buyer, BuyerSource: f.Sim.BuyerSource, QuoteIn: f.Sim.QuoteIn, BuyGas: f.Sim.BuyGas, SellGas: f.Sim.SellGas}
		if f.Sim.BuyOK {
			s.BuyTax = ptr(round4(f.Sim.BuyTax))
		}
		if f.Sim.SellOK {
			s.SellTax = ptr(round4(f.Sim.SellTax))
		}
		r.Simulation = s
	}
	// Ownership.
	o := f.Owner
	switch {
	case !o.Read:
		add("ownership", Unknown, "cannot read owner(): "+o.Reason)
	case !o.HasOwner:
		add("ownership", Pass, "no owner() or getOwner() function")
	case o.Renounced:
		r.Owner = o.Address
		add("ownership", Pass, "ownership renounced (owner is "+o.Address+")")
	default:
		r.Owner = o.Address
		add("ownership", Warn, "owned by "+o.Address+": owner-only functions can be called")
	}
	// Proxy.
	p := f.Proxy
	switch {
	case !p.Read:
		add("proxy", Unknown, "cannot read the proxy slots: "+p.Reason)
	case p.Kind == "":
		add("proxy", Pass, "not a proxy (EIP-1967 implementation and beacon slots empty, not an EIP-1167 clone)")
	case p.Kind == "eip1167":
		r.Proxy = &ProxySummary{Kind: p.Kind, Implementation: p.Implementation}
		add("proxy", Info, "EIP-1167 clone of "+p.Implementation+": the code cannot change")
	default:
		r.Proxy = &ProxySummary{Kind: p.Kind, Implementation: p.Implementation, Admin: p.Admin}
		d := "upgradeable " + p.Kind + " proxy to " + p.Implementation
		if p.Admin != "" {
			d += ", admin " + p.Admin
		}
		add("proxy", Warn, d+": the code can be replaced")
	}
	// Privileged functions.
	controlled := !(o.Read && (!o.HasOwner || o.Renounced)) || (p.Kind != "" && p.Kind != "eip1167")
	if !f.CodeScanned {
		add("bytecode_scan", Unknown, "cannot read the code: "+f.CodeReason)
	} else {
		for _, cl := range FunctionClasses {
			found := f.Functions[cl.Check]
			switch {
			case len(found) == 0:
				add(cl.Check, Pass, "no "+cl.What+" function found in the code")
			case controlled:
				add(cl.Check, Warn, cl.What+" function present: "+strings.Join(found, ", "))
			default:
				add(cl.Check, Info, cl.What+" function present ("+strings.Join(found, ", ")+") but ownership is renounced and the code cannot change")
			}
		}
		if f.SelfDestruct {
			add("self_destruct_opcode", Warn, "the code holds SELFDESTRUCT")
		}
	}
	// Liquidity.
	l := f.Liquidity
	switch {
	case !l.Read:
		add("liquidity", Unknown, "cannot read the pools: "+l.Reason)
	case l.Pools == 0:
		add("liquidity", Fail, "no pool on the listed venues")
	case l.USD >= LiquidityPass:
		add("liquidity", Pass, fmt.Sprintf("$%.0f in %d pool(s)", l.USD, l.Pools))
	case l.USD >= LiquidityWarn:
		add("liquidity", Warn, fmt.Sprintf("$%.0f in %d pool(s): under $50,000", l.USD, l.Pools))
	default:
		add("liquidity", Fail, fmt.Sprintf("$%.0f in %d pool(s): under $10,000", l.USD, l.Pools))
	}
	switch {
	case !l.Read || l.Pools == 0:
	case !l.LPShareKnown:
		add("lp_burned_or_locked", Info, l.LPNote)
	case l.LPBurnedShare >= LPSafeShare:
		add("lp_burned_or_locked", Pass, fmt.Sprintf("%.1f%% of the LP tokens of %s burned or locked", 100*l.LPBurnedShare, l.LPPool))
	default:
		held := "burned (0x0, 0x…dEaD)"
		if l.LPLockers > 0 {
			held = fmt.Sprintf("burned (0x0, 0x…dEaD) or in one of %d listed lockers", l.LPLockers)
		}
		add("lp_burned_or_locked", Warn, fmt.Sprintf("%.1f%% of the LP tokens of %s %s: the rest can withdraw the liquidity unless it sits in a locker this check does not list", 100*l.LPBurnedShare, l.LPPool, held))
	}
	// Observed buy tax.
	ot := f.ObservedTax
	switch {
	case !ot.Read:
		add("observed_buy_tax", Unknown, "cannot read recent buys: "+ot.Reason)
	case ot.Samples == 0:
		add("observed_buy_tax", Info, "no buy in the last hour to observe")
	default:
		add("observed_buy_tax", taxResult(ot.Tax), fmt.Sprintf("median tax %.2f%% over %d recent buys (tokens received against tokens the pool sent)", 100*ot.Tax, ot.Samples))
	}
	// Flow.
	switch {
	case f.Flow == nil:
		add("last_hour_flow", Unknown, "cannot read the flow: "+f.FlowReason)
	case f.Flow.Verdict == Distribution:
		add("last_hour_flow", Warn, fmt.Sprintf("%s: %d swaps, $%.0f volume, buy pressure %.1f%%", f.Flow.Verdict, f.Flow.Swaps, f.Flow.VolumeUSD, f.Flow.BuyPressure))
	default:
		add("last_hour_flow", Info, fmt.Sprintf("%s: %d swaps, $%.0f volume, buy pressure %.1f%%", f.Flow.Verdict, f.Flow.Swaps, f.Flow.VolumeUSD, f.Flow.BuyPressure))
	}
	score := 100
	failed := map[string]bool{}
	for _, c := range r.Checks {
		score -= c.Penalty
		if c.Result == Fail {
			failed[c.Name] = true
			r.FailedChecks = append(r.FailedChecks, c.Name)
		}
	}
	r.SafetyScore = max(score, 0)
	critical := false
	for _, n := range Critical {
		critical = critical || failed[n]
	}
	sellPassed := false
	for _, c := range r.Checks {
		if c.Name == "sell_simulation" && c.Result == Pass {
			sellPassed = true
		}
	}
	switch {
	case critical || r.SafetyScore < HighRiskScore:
		r.Verdict = HighRisk
	case r.SafetyScore >= LowRiskScore && len(failed) == 0 && sellPassed:
		r.Verdict = LowRisk
	default:
		r.Verdict = Caution
	}
	return r
}

func simChecks(s SimFacts, add func(name, result, detail string)) {
	if !s.Ran {
		// No simulation is never a pass.
		add("sell_simulation", Unknown, "not simulated: "+s.Reason)
		add("buy_simulation", Unknown, "not simulated: "+s.Reason)
		return
	}
	who := " by " + s.Buyer + " (" + s.BuyerSource + ") through " + s.Pool
	switch {
	case !s.BuyTried:
		add("buy_simulation", Unknown, "not simulated: "+s.Reason)
	case s.BuyOK:
		add("buy_simulation", Pass, "buy of "+s.QuoteIn+" succeeded"+who)
		add("buy_tax", taxResult(s.BuyTax), fmt.Sprintf("effective buy tax %.2f%% (tokens received against tokens the pool sent)", 100*s.BuyTax))
	default:
		add("buy_simulation", Fail, "buy reverted"+who+": "+s.BuyError)
	}
	switch {
	case !s.SellTried:
		add("sell_simulation", Unknown, "not simulated: "+s.Reason)
	case s.SellOK:
		d := "sell succeeded" + who
		if s.SellOnly {
			d += " (sold an overridden balance: the buy did not run)"
		}
		add("sell_simulation", Pass, d)
		add("sell_tax", taxResult(s.SellTax), fmt.Sprintf("effective sell tax %.2f%% (tokens that reached the pool against tokens sold)", 100*s.SellTax))
	default:
		add("sell_simulation", Fail, "sell reverted"+who+": "+s.SellError)
	}
}

func taxResult(tax float64) string {
	switch {
	case tax < TaxWarn:
		return Pass
	case tax < TaxFail:
		return Warn
	}
	return Fail
}

func ptr[T any](v T) *T { return &v }

func round4(x float64) float64 {
	if x < 0 && x > -1e-9 {
		return 0
	}
	return float64(int64(x*1e4+0.5*sign(x))) / 1e4
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
