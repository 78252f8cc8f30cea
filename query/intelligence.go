package query

import (
	"sync"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/schemas"
)

// bufPool holds response buffers; a body is rendered into one, copied into
// the response and the buffer returned.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// sendRendered renders a body with render into a pooled buffer and answers
// with it as JSON.
func sendRendered(c fiber.Ctx, status int, render func([]byte) []byte) error {
	bp := bufPool.Get().(*[]byte)
	b := render((*bp)[:0])
	err := sendJSON(c, status, b)
	if cap(b) <= 1<<20 { // keep the occasional huge buffer out of the pool
		*bp = b
		bufPool.Put(bp)
	}
	return err
}

// sendOwned answers status with the JSON body render appends to b, and
// hands the result to the response without copying it: b must not be
// used after the call. It is for bodies too large for the pooled buffers
// of sendRendered.
func sendOwned(c fiber.Ctx, status int, b []byte, render func([]byte) []byte) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBodyRaw(render(b))
	return nil
}

// sendParamError answers 400 with the body of e.
func sendParamError(c fiber.Ctx, e *paramError) error {
	return sendRendered(c, fiber.StatusBadRequest, e.appendBody)
}

// handleIntelligenceSymbol serves GET /api/v1/intelligence/:symbol?window=.
func (s *Server) handleIntelligenceSymbol(c fiber.Ctx) error {
	now := s.d.Now()
	return s.serveSymbol(c, func(b []byte, d *schemas.IntelligenceDocument) []byte {
		if s.d.Liquidity == nil {
			return appendSymbolDetail(b, d, now)
		}
		r := s.d.Liquidity.Report(d.Symbol)
		return appendSymbolDetailLiquidity(b, d, now, &r)
	})
}

// serveSymbol validates the window and symbol parameters, looks up the
// symbol's latest document and answers it rendered by render, or 404 with
// the no_data body of spec §7. A covered (fresh) symbol's document comes
// from the cached market step, with its percentiles and relative strength;
// a stale symbol's as the views hold it (percentiles 0, relative strength
// as the operators wrote it).
func (s *Server) serveSymbol(c fiber.Ctx, render func([]byte, *schemas.IntelligenceDocument) []byte) error {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	symbol, perr := parseSymbol(c.Params("symbol"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	d, ok := s.d.Views.Get(symbol, window)
	if !ok {
		covered := s.d.Views.Symbols()
		return sendRendered(c, fiber.StatusNotFound, func(b []byte) []byte {
			return appendNoDataBody(b, symbol, window, covered)
		})
	}
	// A covered symbol is served as the market has it: with its
	// percentiles and relative strength. A stale one as the views hold it.
	if md, covered := s.market(window).get(symbol); covered {
		d = md
	}
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		return render(b, d)
	})
}

// handleIntelligenceList serves GET /api/v1/intelligence?window=&limit=:
// the covered (fresh) documents with their percentiles, most active first.
func (s *Server) handleIntelligenceList(c fiber.Ctx) error {
	window, perr := parseWindow(c.Query("window"))
	if perr != nil {
		return sendParamError(c, perr)
	}
	limit, perr := parseLimit(c.Query("limit"), defaultListLimit, maxListLimit)
	if perr != nil {
		return sendParamError(c, perr)
	}
	docs, _ := s.market(window).rank(byActivity(), limit)
	return sendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		return appendDocuments(b, docs)
	})
}

// appendDocuments appends docs as a JSON array; an empty list renders as [].
func appendDocuments(b []byte, docs []*schemas.IntelligenceDocument) []byte {
	b = append(b, '[')
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendDocument(b, d)
	}
	return append(b, ']')
}
