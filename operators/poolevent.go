package operators

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/marketintel/mi/schemas"
)

// The wire form of pool events: schemas.PoolEvent on mi.pool-events.v1.
// Producers (the EVM connector, the Uniswap log replay) turn a PoolEvent
// into its record with Proto; the liquidity view turns records back with
// PoolEventFromProto. The round trip is exact.

// ErrBadPoolEvent is wrapped by PoolEventFromProto's errors.
var ErrBadPoolEvent = errors.New("bad pool event")

// PoolKey is the key of a pool's records on mi.pool-events.v1: chain|address.
// All events of one pool share a partition and so keep their order.
func PoolKey(chain, address string) string { return chain + "|" + address }

// Proto returns the record of m.
func (m *PoolMeta) Proto() *schemas.Pool {
	return &schemas.Pool{
		Chain: m.Chain, Address: m.Address, Name: m.Name, Fee: m.Fee, TickSpacing: m.TickSpacing,
		Token0: m.Token0, Token1: m.Token1, Ticker0: m.Ticker0, Ticker1: m.Ticker1,
		Decimals0: uint32(m.Decimals0), Decimals1: uint32(m.Decimals1), Symbol0: m.Symbol0, Symbol1: m.Symbol1,
	}
}

// PoolMetaFromProto returns the pool a record describes, marked Resolved.
func PoolMetaFromProto(p *schemas.Pool) (*PoolMeta, error) {
	switch {
	case p == nil:
		return nil, fmt.Errorf("%w: no pool", ErrBadPoolEvent)
	case p.Chain == "" || p.Address == "":
		return nil, fmt.Errorf("%w: pool without chain or address", ErrBadPoolEvent)
	case p.Decimals0 > 77 || p.Decimals1 > 77:
		return nil, fmt.Errorf("%w: token decimals %d/%d out of range", ErrBadPoolEvent, p.Decimals0, p.Decimals1)
	case p.Fee >= 1_000_000:
		return nil, fmt.Errorf("%w: fee %d out of range", ErrBadPoolEvent, p.Fee)
	}
	return &PoolMeta{
		Chain: p.Chain, Address: p.Address, Name: p.Name, Fee: p.Fee, TickSpacing: p.TickSpacing,
		Token0: p.Token0, Token1: p.Token1, Ticker0: p.Ticker0, Ticker1: p.Ticker1,
		Decimals0: int(p.Decimals0), Decimals1: int(p.Decimals1), Symbol0: p.Symbol0, Symbol1: p.Symbol1,
		Resolved: true,
	}, nil
}

// Proto returns the record of ev (its Meta must be set).
func (ev *PoolEvent) Proto() *schemas.PoolEvent {
	if ev.Meta == nil {
		panic("BUG: pool event without its pool")
	}
	p := &schemas.PoolEvent{
		Pool: ev.Meta.Proto(), Block: ev.Block, LogIndex: ev.LogIndex, TimeNs: ev.TimeNs,
		Retracted: ev.Retracted, TxHash: ev.TxHash,
	}
	dec := func(x *big.Int) string {
		if x == nil {
			return ""
		}
		return x.String()
	}
	switch ev.Kind {
	case PoolSwap, PoolSnapshot:
		p.Kind = schemas.PoolEventKind_POOL_EVENT_KIND_SWAP
		if ev.Kind == PoolSnapshot {
			p.Kind = schemas.PoolEventKind_POOL_EVENT_KIND_SNAPSHOT
			p.Ticks = make([]*schemas.TickLiquidity, len(ev.Ticks))
			for i, t := range ev.Ticks {
				p.Ticks[i] = &schemas.TickLiquidity{Tick: t.Tick, LiquidityNet: dec(t.Net)}
			}
		}
		p.SqrtPriceX96, p.Liquidity, p.Tick = dec(ev.SqrtPriceX96), dec(ev.Liquidity), ev.Tick
	case PoolMint, PoolBurn:
		p.Kind = schemas.PoolEventKind_POOL_EVENT_KIND_MINT
		if ev.Kind == PoolBurn {
			p.Kind = schemas.PoolEventKind_POOL_EVENT_KIND_BURN
		}
		p.TickLower, p.TickUpper, p.Amount = ev.TickLower, ev.TickUpper, dec(ev.Amount)
	default:
		panic(fmt.Sprintf("BUG: pool event kind %d", ev.Kind))
	}
	return p
}

// PoolEventFromProto returns the event a record holds, with its own Meta
// (callers that keep one Meta per pool replace it). It checks what
// PoolState.Apply relies on: a known kind, decimal integers where the kind
// needs them (unsigned for prices, liquidity and amounts), ticks within
// ±MaxTick, a tick range with lower < upper, snapshot ticks ascending.
func PoolEventFromProto(p *schemas.PoolEvent) (PoolEvent, error) {
	m, err := PoolMetaFromProto(p.GetPool())
	if err != nil {
		return PoolEvent{}, err
	}
	ev := PoolEvent{Meta: m, Block: p.Block, LogIndex: p.LogIndex, TimeNs: p.TimeNs, Retracted: p.Retracted, TxHash: p.TxHash}
	tick := func(name string, t int32) error {
		if t < -MaxTick || t > MaxTick {
			return fmt.Errorf("%w: %s %d out of range", ErrBadPoolEvent, name, t)
		}
		return nil
	}
	num := func(name, s string, signed bool) (*big.Int, error) {
		x, ok := new(big.Int).SetString(s, 10)
		if !ok || len(s) > 80 || (!signed && x.Sign() < 0) {
			return nil, fmt.Errorf("%w: %s %q is not a decimal integer", ErrBadPoolEvent, name, s)
		}
		return x, nil
	}
	switch p.Kind {
	case schemas.PoolEventKind_POOL_EVENT_KIND_SWAP, schemas.PoolEventKind_POOL_EVENT_KIND_SNAPSHOT:
		ev.Kind = PoolSwap
		if ev.SqrtPriceX96, err = num("sqrt_price_x96", p.SqrtPriceX96, false); err != nil {
			return PoolEvent{}, err
		}
		if ev.SqrtPriceX96.Sign() == 0 {
			return PoolEvent{}, fmt.Errorf("%w: sqrt_price_x96 is 0", ErrBadPoolEvent)
		}
		if ev.Liquidity, err = num("liquidity", p.Liquidity, false); err != nil {
			return PoolEvent{}, err
		}
		if err := tick("tick", p.Tick); err != nil {
			return PoolEvent{}, err
		}
		ev.Tick = p.Tick
		if p.Kind == schemas.PoolEventKind_POOL_EVENT_KIND_SNAPSHOT {
			ev.Kind = PoolSnapshot
			ev.Ticks = make([]TickNet, len(p.Ticks))
			for i, t := range p.Ticks {
				if err := tick("ticks.tick", t.Tick); err != nil {
					return PoolEvent{}, err
				}
				if i > 0 && t.Tick <= p.Ticks[i-1].Tick {
					return PoolEvent{}, fmt.Errorf("%w: snapshot ticks not ascending at %d", ErrBadPoolEvent, t.Tick)
				}
				n, err := num("ticks.liquidity_net", t.LiquidityNet, true)
				if err != nil {
					return PoolEvent{}, err
				}
				ev.Ticks[i] = TickNet{Tick: t.Tick, Net: n}
			}
		}
	case schemas.PoolEventKind_POOL_EVENT_KIND_MINT, schemas.PoolEventKind_POOL_EVENT_KIND_BURN:
		ev.Kind = PoolMint
		if p.Kind == schemas.PoolEventKind_POOL_EVENT_KIND_BURN {
			ev.Kind = PoolBurn
		}
		if err := tick("tick_lower", p.TickLower); err != nil {
			return PoolEvent{}, err
		}
		if err := tick("tick_upper", p.TickUpper); err != nil {
			return PoolEvent{}, err
		}
		if p.TickLower >= p.TickUpper {
			return PoolEvent{}, fmt.Errorf("%w: tick range [%d, %d) is empty", ErrBadPoolEvent, p.TickLower, p.TickUpper)
		}
		ev.TickLower, ev.TickUpper = p.TickLower, p.TickUpper
		if ev.Amount, err = num("amount", p.Amount, false); err != nil {
			return PoolEvent{}, err
		}
	default:
		return PoolEvent{}, fmt.Errorf("%w: unknown kind %d", ErrBadPoolEvent, p.Kind)
	}
	return ev, nil
}
