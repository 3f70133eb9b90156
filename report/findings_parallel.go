package report

import (
	"runtime"
	"sync"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/report/wire"
)

// A report of many findings (one of a check of 200,000 unsynced files
// is 400 MB of JSON) was written on one goroutine after the check, while
// the other CPU had nothing left to do. writeFindings encodes such a
// report's findings in batches on several goroutines, each reading the
// result through a check.Reading of its own, and writes the batches in
// order: the same bytes as one finding after the other.

var (
	// batchFindings is how many findings a batch holds, parallelFrom how
	// many a report needs for its findings to be encoded in batches at
	// all; variables for the tests, which make them small.
	batchFindings = 256
	parallelFrom  = 4 * 256
	// maxEncoders bounds the goroutines encoding batches.
	maxEncoders = 4
)

// findingBatch is a run of count findings in report order, from the k-th
// of problem n; enc holds them once done is closed, or err says why not.
type findingBatch struct {
	n, k, count int
	enc         *wire.FindingBatch
	err         error
	done        chan struct{}
}

// writeFindings writes res's findings with out in the order of the
// problems (eachInProblems), each as opt.finding makes it; ids and sums
// are the problems' ids and their findings' fingerprints.
func writeFindings(out *wire.ReportWriter, res *check.Result, ps *check.Problems, ids []string, sums [][][8]byte, opt Options) error {
	var fj wire.Finding
	var st wire.State
	workers := min(runtime.GOMAXPROCS(0), maxEncoders)
	if workers < 2 || res.Len() < parallelFrom {
		return eachInProblems(res, ps, func(n, k int, f *check.Finding) error {
			opt.finding(f, sums[n][k], &fj, &st)
			fj.Problem = ids[n]
			return out.Finding(&fj)
		})
	}
	// The first finding opens the array, as Finding writes it; the
	// batches come after it.
	n, k := 0, 0
	for n < len(ps.List) && len(ps.List[n].Members) == 0 {
		n++
	}
	if n == len(ps.List) {
		return nil
	}
	var reuse check.Finding
	var rst check.State
	f, err := res.AtReuse(int(ps.List[n].Members[0]), &reuse, &rst)
	if err != nil {
		return err
	}
	opt.finding(f, sums[n][0], &fj, &st)
	fj.Problem = ids[n]
	if err := out.Finding(&fj); err != nil {
		return err
	}
	k = 1

	todo := make(chan *findingBatch)
	inOrder := make(chan *findingBatch, 2*workers)
	free := make(chan *wire.FindingBatch, 3*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := batchEncoder{rd: res.NewReading(), ps: ps, ids: ids, sums: sums, opt: opt}
			for b := range todo {
				b.err = e.encode(b)
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
		for {
			for n < len(ps.List) && k == len(ps.List[n].Members) {
				n, k = n+1, 0
			}
			if n == len(ps.List) {
				return
			}
			b := &findingBatch{n: n, k: k, done: make(chan struct{})}
			select {
			case b.enc = <-free:
				b.enc.Reset()
			default:
				b.enc = out.NewBatch()
			}
			// Count the batch's findings, moving n and k past them.
			for b.count < batchFindings && n < len(ps.List) {
				take := min(batchFindings-b.count, len(ps.List[n].Members)-k)
				b.count += take
				k += take
				for n < len(ps.List) && k == len(ps.List[n].Members) {
					n, k = n+1, 0
				}
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
	err = nil
	for b := range inOrder {
		if err != nil {
			continue // drain, so that the cutting goroutine ends
		}
		<-b.done
		if err = b.err; err == nil {
			err = out.Batch(b.enc)
		}
		if err != nil {
			close(stop)
			continue
		}
		select {
		case free <- b.enc:
		default:
		}
	}
	wg.Wait()
	return err
}

// batchEncoder is one encoding goroutine's: its own reading of the
// result and its own room for a finding.
type batchEncoder struct {
	rd   *check.Reading
	ps   *check.Problems
	ids  []string
	sums [][][8]byte
	opt  Options
	f    check.Finding
	st   check.State
	fj   wire.Finding
	wst  wire.State
}

// encode fills b.enc with b's findings.
func (e *batchEncoder) encode(b *findingBatch) error {
	n, k := b.n, b.k
	for range b.count {
		for k == len(e.ps.List[n].Members) {
			n, k = n+1, 0
		}
		f, err := e.rd.AtReuse(int(e.ps.List[n].Members[k]), &e.f, &e.st)
		if err != nil {
			return err
		}
		e.opt.finding(f, e.sums[n][k], &e.fj, &e.wst)
		e.fj.Problem = e.ids[n]
		b.enc.Finding(&e.fj)
		k++
	}
	return nil
}
