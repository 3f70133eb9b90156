package report

import (
	"iter"
	"runtime"
	"sync"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

// A report of many findings (one of a check of 200,000 unsynced files
// is 400 MB of JSON) was written on one goroutine after the check, while
// the other CPU had nothing left to do. inBatches makes a report's
// findings into bytes in batches on several goroutines, each reading the
// result through a check.Reading of its own, and writes the batches in
// order: the same bytes as one finding after the other.

var (
	// batchFindings is how many findings a batch holds, parallelFrom how
	// many a report needs for its findings to be made in batches at all;
	// variables for the tests, which make them small.
	batchFindings = 256
	parallelFrom  = 4 * 256
	// maxEncoders bounds the goroutines making batches.
	maxEncoders = 4
)

// batchFunc appends to dst what a report writes for count findings in
// report order, from the k-th of problem n (ps.List[n].Members[k]).
type batchFunc func(dst []byte, n, k, count int) ([]byte, error)

// findingBatch is a run of count findings in report order, from the k-th
// of problem n; out holds their bytes once done is closed, or err says
// why not.
type findingBatch struct {
	n, k, count int
	out         []byte
	err         error
	done        chan struct{}
}

// encoders is how many goroutines inBatches would use for a result of n
// findings: 1 when it is small or the process has one CPU.
func encoders(n int) int {
	if n < parallelFrom {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), maxEncoders))
}

// batchesFrom yields the batches of ps's findings from the k-th of
// problem n on, in report order: at most batchFindings each.
func batchesFrom(ps *check.Problems, n, k int) iter.Seq[findingBatch] {
	return func(yield func(findingBatch) bool) {
		// next moves n and k to the next finding, past problems done.
		next := func() {
			for n < len(ps.List) && k == len(ps.List[n].Members) {
				n, k = n+1, 0
			}
		}
		next()
		for n < len(ps.List) {
			b := findingBatch{n: n, k: k}
			for b.count < batchFindings && n < len(ps.List) {
				take := min(batchFindings-b.count, len(ps.List[n].Members)-k)
				b.count += take
				k += take
				next()
			}
			if !yield(b) {
				return
			}
		}
	}
}

// inBatches writes the findings of ps's problems from the k-th of
// problem n on: the bytes each worker (made by newWorker, one for each
// goroutine) appends for a batch of them (batchesFrom), handed to write
// in order. With one goroutine, one worker makes them all, batch after
// batch, so that a large report is not held whole.
func inBatches(ps *check.Problems, n, k, goroutines int, newWorker func() batchFunc, write func([]byte) error) error {
	if goroutines < 2 {
		work := newWorker()
		var buf []byte
		for b := range batchesFrom(ps, n, k) {
			var err error
			if buf, err = work(buf[:0], b.n, b.k, b.count); err != nil {
				return err
			}
			if err := write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	todo := make(chan *findingBatch)
	inOrder := make(chan *findingBatch, 2*goroutines)
	free := make(chan []byte, 3*goroutines)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			for b := range todo {
				b.out, b.err = work(b.out, b.n, b.k, b.count)
				close(b.done)
			}
		}()
	}
	// The batches are cut on a goroutine of their own, which stops when
	// told to: the writer below may give up at any batch.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(inOrder)
		defer close(todo)
		for cut := range batchesFrom(ps, n, k) {
			b := &cut
			b.done = make(chan struct{})
			select {
			case b.out = <-free:
			default:
			}
			select {
			case inOrder <- b:
			case <-stop:
				return
			}
			select {
			case todo <- b:
			case <-stop:
				return
			}
		}
	}()
	var err error
	for b := range inOrder {
		if err != nil {
			continue // drain, so that the cutting goroutine ends
		}
		<-b.done
		if err = b.err; err == nil {
			err = write(b.out)
		}
		if err != nil {
			close(stop)
			continue
		}
		select {
		case free <- b.out[:0]:
		default:
		}
	}
	wg.Wait()
	return err
}

// writeFindings writes res's findings with out in the order of the
// problems, each as opt.finding makes it; ids and sums are the problems'
// ids and their findings' fingerprints. The first opens the array, as
// Finding writes it; the rest go in batches (inBatches).
func writeFindings(out *wire.ReportWriter, res *check.Result, ps *check.Problems, ids []string, sums [][][8]byte, opt Options) error {
	n := 0
	for n < len(ps.List) && len(ps.List[n].Members) == 0 {
		n++
	}
	if n == len(ps.List) {
		return nil
	}
	first := &jsonFindings{rd: res.NewReading(), ps: ps, ids: ids, sums: sums, opt: opt}
	fj, err := first.fill(n, 0)
	if err != nil {
		return err
	}
	if err := out.Finding(fj); err != nil {
		return err
	}
	return inBatches(ps, n, 1, encoders(res.Len()), func() batchFunc {
		w := jsonWorker(res, ps, ids, sums, opt, out)
		return w.batch
	}, out.Findings)
}

// jsonFindings is one goroutine's making of JSON findings: its own
// reading of the result, its own room for a finding and its own batch
// (none for the first finding, which the writer writes itself).
type jsonFindings struct {
	rd   *check.Reading
	ps   *check.Problems
	ids  []string
	sums [][][8]byte
	opt  Options
	enc  *wire.FindingBatch
	f    check.Finding
	st   check.State
	fj   wire.Finding
	wst  wire.State
}

func jsonWorker(res *check.Result, ps *check.Problems, ids []string, sums [][][8]byte, opt Options, out *wire.ReportWriter) *jsonFindings {
	return &jsonFindings{rd: res.NewReading(), ps: ps, ids: ids, sums: sums, opt: opt, enc: out.NewBatch()}
}

// fill makes the k-th finding of problem n as the report writes it, in
// the worker's room.
func (e *jsonFindings) fill(n, k int) (*wire.Finding, error) {
	f, err := e.rd.AtReuse(int(e.ps.List[n].Members[k]), &e.f, &e.st)
	if err != nil {
		return nil, err
	}
	e.opt.finding(f, e.sums[n][k], &e.fj, &e.wst)
	e.fj.Problem = e.ids[n]
	return &e.fj, nil
}

// batch is a batchFunc.
func (e *jsonFindings) batch(dst []byte, n, k, count int) ([]byte, error) {
	e.enc.Reset()
	for range count {
		for k == len(e.ps.List[n].Members) {
			n, k = n+1, 0
		}
		fj, err := e.fill(n, k)
		if err != nil {
			return dst, err
		}
		e.enc.Finding(fj)
		k++
	}
	return append(dst, e.enc.Bytes()...), nil
}
