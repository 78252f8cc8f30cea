package token

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/evmcode"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// riskRead is a cached report; partial reports (a read failed, so some
// checks are UNKNOWN) are not kept.
type riskRead struct {
	report  *assess.Report
	partial bool
}

// freshBuyer simulates when the last hour saw no buy: an address that
// holds nothing and is on no list.
var freshBuyer = common.HexToAddress("0x5A1A5A1A5A1A5A1A5A1A5A1A5A1A5A1A5A1A11CE")

// observedBuys is how many recent buys the observed tax reads.
const observedBuys = 5

// Risk returns the token's risk report on chainName. Reports are shared
// for RiskTTL (the answer is shared: callers must not modify it), except
// partial ones, whose failed reads are retried by the next request. A read
// that fails after the token is identified makes its checks UNKNOWN,
// never a PASS. Errors: IsBadInput for an address that holds no token or
// an unknown chain; chain failures before the token could be identified.
func (r *Reader) Risk(ctx context.Context, chainName string, token common.Address) (*assess.Report, error) {
	key := chainName + "|" + token.Hex()
	rr, err := r.risks.Get(ctx, key, func(ctx context.Context) (*assess.Report, error) {
		rr, err := r.loadRisk(ctx, chainName, token)
		if err != nil {
			return nil, err
		}
		if rr.partial {
			return rr.report, errPartial{rr.report}
		}
		return rr.report, nil
	})
	var p errPartial
	if errors.As(err, &p) {
		return p.report, nil
	}
	return rr, err
}

// errPartial carries a partial report out of the cache's load so that it
// is returned but not stored.
type errPartial struct{ report *assess.Report }

func (errPartial) Error() string { return "partial report" }

func (r *Reader) loadRisk(ctx context.Context, chainName string, token common.Address) (*riskRead, error) {
	fr, err := r.readFlow(ctx, chainName, token)
	if err != nil {
		return nil, err
	}
	s, err := r.open(ctx, chainName, token)
	if err != nil {
		return nil, err
	}
	// Pin to the flow's block: the facts describe one state.
	s.head = fr.head
	s.block = hexutil.EncodeUint64(fr.head.Number)
	f := assess.Facts{Token: token.Hex(), Chain: chainName, Name: fr.info.Name, Symbol: fr.info.Symbol, Decimals: fr.info.Decimals,
		Flow: fr.flow, Block: fr.head.Number, Timestamp: fr.flow.Timestamp, ReadAt: r.clk.Now().UTC()}
	partial := false
	fail := func(err error) string {
		partial = true
		return err.Error()
	}
	// Proxy and code.
	impl, proxy := s.proxy(ctx, fr.info.Code)
	f.Proxy = proxy
	if !proxy.Read {
		partial = true
	}
	sels := evmcode.Selectors(fr.info.Code)
	f.CodeScanned = true
	f.SelfDestruct = evmcode.HasOpcode(fr.info.Code, 0xff)
	if impl != (common.Address{}) {
		code, err := s.c.Code(ctx, impl, s.at())
		switch {
		case err != nil:
			f.CodeScanned, f.CodeReason = false, "implementation "+impl.Hex()+": "+fail(err)
		case len(code) == 0:
			f.CodeScanned, f.CodeReason = false, "implementation "+impl.Hex()+" has no code"
		default:
			sels = append(sels, evmcode.Selectors(code)...)
			f.SelfDestruct = f.SelfDestruct || evmcode.HasOpcode(code, 0xff)
		}
	}
	f.Functions = assess.ScanFunctions(sels)
	// Owner.
	f.Owner = s.owner(ctx)
	if !f.Owner.Read {
		partial = true
	}
	// Liquidity and LP.
	f.Liquidity = assess.LiquidityFacts{Read: true, Pools: len(fr.pools), USD: fr.flow.LiquidityUSD}
	deep := deepestV2(fr.pools)
	if deep != nil {
		if err := s.lpShare(ctx, deep, &f.Liquidity); err != nil {
			f.Liquidity.LPNote = "cannot read the LP token holders: " + fail(err)
		}
	} else if len(fr.pools) > 0 {
		f.Liquidity.LPNote = "no Uniswap v2-style pair: v3 liquidity is held in position NFTs, whose burned or locked share is not measured"
	}
	// Observed tax.
	f.ObservedTax = s.observedTax(ctx, fr.buys)
	if !f.ObservedTax.Read {
		partial = true
	}
	// Simulation.
	f.Sim = s.simulation(ctx, fr, deep, f.Owner)
	if f.Sim.Failed {
		partial = true
	}
	return &riskRead{report: assess.Assess(f), partial: partial}, nil
}

// proxy reads the EIP-1967 slots (implementation, beacon, admin) and
// recognizes EIP-1167 clones; it returns the implementation to scan.
func (s *session) proxy(ctx context.Context, code []byte) (common.Address, assess.ProxyFacts) {
	if a, ok := evmcode.MinimalProxyTarget(code); ok {
		return a, assess.ProxyFacts{Read: true, Kind: "eip1167", Implementation: a.Hex()}
	}
	slots := []common.Hash{SlotImplementation, SlotBeacon, SlotAdmin}
	outs := make([]hexutil.Bytes, len(slots))
	elems := make([]rpc.BatchElem, len(slots))
	for i, sl := range slots {
		elems[i] = rpc.BatchElem{Method: "eth_getStorageAt", Args: []any{s.token, sl, s.block}, Result: &outs[i]}
	}
	if err := s.c.Batch(ctx, elems); err != nil {
		return common.Address{}, assess.ProxyFacts{Reason: err.Error()}
	}
	for _, e := range elems {
		if e.Error != nil {
			return common.Address{}, assess.ProxyFacts{Reason: e.Error.Error()}
		}
	}
	word := func(b []byte) common.Address { return common.BytesToAddress(common.LeftPadBytes(b, 32)[12:]) }
	impl, beacon, admin := word(outs[0]), word(outs[1]), word(outs[2])
	pf := assess.ProxyFacts{Read: true}
	if admin != (common.Address{}) {
		pf.Admin = admin.Hex()
	}
	switch {
	case impl != (common.Address{}):
		pf.Kind, pf.Implementation = "eip1967", impl.Hex()
		return impl, pf
	case beacon != (common.Address{}):
		cl := &call{to: beacon, data: implementationCall}
		if err := s.batch(ctx, []*call{cl}); err != nil || cl.err != nil || len(cl.out) != 32 {
			pf.Kind, pf.Implementation = "eip1967-beacon", "unknown (beacon "+beacon.Hex()+" did not answer implementation())"
			return common.Address{}, pf
		}
		impl = common.BytesToAddress(cl.out[12:])
		pf.Kind, pf.Implementation = "eip1967-beacon", impl.Hex()
		return impl, pf
	}
	return common.Address{}, pf
}

// implementationCall is implementation() (0x5c60da1b), asked of a beacon.
var implementationCall = common.FromHex("0x5c60da1b")

// owner reads owner() and getOwner().
func (s *session) owner(ctx context.Context) assess.OwnerFacts {
	calls := []*call{{to: s.token, data: pack("owner")}, {to: s.token, data: pack("getOwner")}}
	if err := s.batch(ctx, calls); err != nil {
		return assess.OwnerFacts{Reason: err.Error()}
	}
	for i, m := range []string{"owner", "getOwner"} {
		if v, ok := unpack(m, calls[i]); ok {
			a := v[0].(common.Address)
			return assess.OwnerFacts{Read: true, HasOwner: true, Address: a.Hex(), Renounced: a == zeroAddress || a == deadAddress}
		}
	}
	return assess.OwnerFacts{Read: true}
}

// deepestV2 is the v2 pool with the most liquidity.
func deepestV2(pools []*pool) *pool {
	var best *pool
	for _, p := range pools {
		if p.kind == KindV2 && (best == nil || p.LiquidityUSD > best.LiquidityUSD) {
			best = p
		}
	}
	return best
}

// lpShare reads the share of p's LP tokens held by the zero and dead
// addresses and the chain's lockers.
func (s *session) lpShare(ctx context.Context, p *pool, l *assess.LiquidityFacts) error {
	holders := append([]common.Address{zeroAddress, deadAddress}, s.cv.Lockers...)
	calls := []*call{{to: p.addr, data: pack("totalSupply")}}
	for _, h := range holders {
		calls = append(calls, &call{to: p.addr, data: pack("balanceOf", h)})
	}
	if err := s.batch(ctx, calls); err != nil {
		return err
	}
	v, ok := unpack("totalSupply", calls[0])
	if !ok || v[0].(*big.Int).Sign() == 0 {
		l.LPNote = "the pair's LP supply cannot be read"
		return nil
	}
	total := v[0].(*big.Int)
	held := new(big.Int)
	for _, cl := range calls[1:] {
		if b, ok := unpack("balanceOf", cl); ok {
			held.Add(held, b[0].(*big.Int))
		}
	}
	share, _ := new(big.Rat).SetFrac(held, total).Float64()
	l.LPShareKnown, l.LPBurnedShare, l.LPPool, l.LPLockers = true, share, p.addr.Hex(), len(s.cv.Lockers)
	return nil
}

// observedTax reads the receipts of the most recent buys and compares the
// tokens the buyer's address received (Transfer logs from the pool) with
// the tokens the pool sent.
func (s *session) observedTax(ctx context.Context, buys []buyObs) assess.ObservedTaxFacts {
	if len(buys) > observedBuys {
		buys = buys[:observedBuys]
	}
	if len(buys) == 0 {
		return assess.ObservedTaxFacts{Read: true}
	}
	recs := make([]*types.Receipt, len(buys))
	elems := make([]rpc.BatchElem, len(buys))
	for i, b := range buys {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{b.Tx}, Result: &recs[i]}
	}
	if err := s.c.Batch(ctx, elems); err != nil {
		return assess.ObservedTaxFacts{Reason: err.Error()}
	}
	var taxes []float64
	for i, b := range buys {
		if elems[i].Error != nil || recs[i] == nil {
			continue
		}
		got := new(big.Int)
		for _, l := range recs[i].Logs {
			if l.Address == s.token && len(l.Topics) == 3 && l.Topics[0] == topicTransfer &&
				common.BytesToAddress(l.Topics[1][12:]) == b.Pool && common.BytesToAddress(l.Topics[2][12:]) == b.Recipient && len(l.Data) == 32 {
				got.Add(got, new(big.Int).SetBytes(l.Data))
			}
		}
		taxes = append(taxes, tax(got, b.Out))
	}
	if len(taxes) == 0 {
		return assess.ObservedTaxFacts{Read: true}
	}
	slices.Sort(taxes)
	med := taxes[len(taxes)/2]
	if len(taxes)%2 == 0 {
		med = (taxes[len(taxes)/2-1] + med) / 2
	}
	return assess.ObservedTaxFacts{Read: true, Samples: len(taxes), Tax: med}
}

// simulation runs the buy and the sell through the deepest v2 pair twice:
// as the most recent buyer of the last hour (unless that is the token's
// owner, whom fee and trading rules often exempt) and as a fresh address
// (which a whitelist of early buyers does not cover), and keeps the worse
// outcome: a reverted sell, then a reverted buy, then a run that could not
// be read, then the higher tax.
func (s *session) simulation(ctx context.Context, fr *flowRead, p *pool, owner assess.OwnerFacts) assess.SimFacts {
	if p == nil {
		reason := "no pool of the token on the listed venues"
		if len(fr.pools) > 0 {
			reason = "the token trades only in Uniswap v3 pools; the simulator runs through v2-style pairs"
		}
		return assess.SimFacts{Reason: reason}
	}
	var runs []assess.SimFacts
	for _, b := range fr.buys {
		if b.Trader == (common.Address{}) {
			continue
		}
		if owner.HasOwner && strings.EqualFold(owner.Address, b.Trader.Hex()) {
			continue // the owner is no test of what a buyer meets
		}
		runs = append(runs, s.simulateAs(ctx, fr, p, b.Trader, "the most recent buyer, transaction "+b.Tx.Hex()))
		break
	}
	fresh := "a fresh address (no buy in the last hour by another wallet than the owner)"
	if len(runs) > 0 {
		fresh = "a fresh address"
	}
	runs = append(runs, s.simulateAs(ctx, fr, p, freshBuyer, fresh))
	worst := runs[0]
	for _, r := range runs[1:] {
		if simSeverity(r) > simSeverity(worst) {
			worst = r
		}
	}
	if len(runs) == 2 {
		other := runs[0]
		if worst.Buyer == other.Buyer {
			other = runs[1]
		}
		worst.BuyerSource += "; also simulated as " + other.Buyer + " (" + other.BuyerSource + "), the worse run is shown"
	}
	return worst
}

// simSeverity orders simulation outcomes, worse higher.
func simSeverity(sf assess.SimFacts) float64 {
	switch {
	case sf.Ran && sf.SellTried && !sf.SellOK:
		return 40
	case sf.Ran && sf.BuyTried && !sf.BuyOK:
		return 30
	case !sf.Ran || (!sf.SellTried && !sf.BuyTried):
		return 20
	}
	return max(sf.BuyTax, sf.SellTax) // 0..1
}

// simulateAs runs the simulation as buyer.
func (s *session) simulateAs(ctx context.Context, fr *flowRead, p *pool, buyer common.Address, source string) assess.SimFacts {
	sf := assess.SimFacts{Ran: true, Pool: p.addr.Hex(), Quote: p.quote.Symbol, Buyer: buyer.Hex(), BuyerSource: source}
	// Spend 0.1 % of the pair's quote reserve, at most $1,000.
	quoteIn := new(big.Int).Div(p.rQuote, big.NewInt(1000))
	if p.quote.USD > 0 {
		capRaw, _ := new(big.Float).Mul(big.NewFloat(1000/p.quote.USD), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p.quote.Decimals)), nil))).Int(nil)
		if capRaw.Sign() > 0 && quoteIn.Cmp(capRaw) > 0 {
			quoteIn = capRaw
		}
	}
	sf.QuoteIn = formatUnits(quoteIn, p.quote.Decimals) + " " + p.quote.Symbol
	qslot, err := s.balanceSlot(ctx, p.quote.Address)
	if err != nil {
		return unknownSim(sf, err)
	}
	tokenSell := new(big.Int)
	var tslot balanceSlot
	if !qslot.Found {
		quoteIn = new(big.Int)
		sf.Reason = "the quote token's balance slot was not found, so the buy cannot be funded"
		tslot, err = s.balanceSlot(ctx, s.token)
		if err != nil {
			return unknownSim(sf, err)
		}
		if !tslot.Found {
			sf.Reason += "; the token's balance slot was not found either, so the sell cannot be funded"
			return sf
		}
		// Sell what the quote would buy at the pool's price, before tax.
		tokenSell = new(big.Int).Div(p.rToken, big.NewInt(1000))
		sf.SellOnly = true
	} else {
		sf.BuyTried = true
	}
	res, err := s.simulate(ctx, p, buyer, quoteIn, qslot, tokenSell, tslot)
	if err != nil {
		var re *chain.RevertError
		if errors.As(err, &re) {
			// The simulator itself reverted: not a statement on the token.
			sf.Failed, sf.Reason = false, "the simulation could not run: "+re.Error()
			sf.BuyTried, sf.SellTried = false, false
			return sf
		}
		return unknownSim(sf, err)
	}
	if sf.BuyTried {
		sf.BuyOK = res.BuyOk
		sf.BuyGas = res.BuyGas.Uint64()
		if res.BuyOk {
			sf.BuyTax = tax(res.BuyReceived, res.BuyExpected)
		} else {
			sf.BuyError = revertText(res.BuyError)
		}
	}
	if res.SellAmount.Sign() > 0 {
		sf.SellTried, sf.SellOK = true, res.SellOk
		sf.SellGas = res.SellGas.Uint64()
		if res.SellOk {
			sf.SellTax = tax(res.SellArrived, res.SellAmount)
		} else {
			sf.SellError = revertText(res.SellError)
		}
	} else if sf.BuyTried && !res.BuyOk {
		// The buy failed: sell an overridden balance if the token's slot
		// is found, so a token that blocks buys is still checked for sells.
		tslot, err := s.balanceSlot(ctx, s.token)
		if err != nil {
			sf.Reason = "the buy failed and the sell could not be funded: " + err.Error()
			sf.Failed = true
			return sf
		}
		if !tslot.Found {
			sf.Reason = "the buy failed and the token's balance slot was not found, so the sell cannot be funded"
			return sf
		}
		res2, err := s.simulate(ctx, p, buyer, new(big.Int), qslot, new(big.Int).Div(p.rToken, big.NewInt(1000)), tslot)
		if err != nil {
			sf.Reason = "the sell-only simulation failed: " + err.Error()
			sf.Failed = !isRevert(err)
			return sf
		}
		sf.SellTried, sf.SellOK, sf.SellOnly = true, res2.SellOk, true
		sf.SellGas = res2.SellGas.Uint64()
		if res2.SellOk {
			sf.SellTax = tax(res2.SellArrived, res2.SellAmount)
		} else {
			sf.SellError = revertText(res2.SellError)
		}
	}
	return sf
}

func isRevert(err error) bool {
	var re *chain.RevertError
	return errors.As(err, &re)
}

// unknownSim marks a simulation that a chain failure stopped.
func unknownSim(sf assess.SimFacts, err error) assess.SimFacts {
	sf.Ran, sf.Failed, sf.Reason = false, true, "cannot read the chain: "+err.Error()
	return sf
}

// formatUnits writes x raw units of a token with dec decimals.
func formatUnits(x *big.Int, dec uint8) string {
	return new(big.Float).Quo(new(big.Float).SetInt(x), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil))).Text('f', -1)
}
